/// The service's part of households (SPEC §13; docs/threat-model.md, "Households: the
/// design"): who may read and append to a household journal, and its invitations. The
/// server checks only what it records — who is a member, who is an owner, an invitation's
/// signature, expiry and single use; the members check the cryptography.
///
/// A household journal is held by an account of its own that has no device
/// (``createHousehold``), so no person's `account_id = gk_current_account()` ever matches its
/// rows: every member, the creator included, reads it only through their row in
/// `gk_members`, and loses it with that row. Row-level security on the journal tables admits
/// the rows of the transaction's account and of the households it is a member of
/// (``Schema/policy(_:)``).
enum HouseholdSchema {
    static let tables: [String] = [
        // (household, member account, role): the household is its account, which holds one journal.
        """
        CREATE TABLE IF NOT EXISTS gk_members (
            household_account uuid NOT NULL REFERENCES gk_accounts (id),
            member_account uuid NOT NULL REFERENCES gk_accounts (id),
            role text NOT NULL CHECK (role IN ('owner', 'member')),
            member_keys bytea CHECK (length(member_keys) = 64),
            joined_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (household_account, member_account))
        """,
        "CREATE INDEX IF NOT EXISTS gk_members_by_member ON gk_members (member_account, household_account)",
        // An invitation as the owner posted it (never the code's secret), and the one join
        // request it took: a second use is refused and counted, for the owners to see.
        """
        CREATE TABLE IF NOT EXISTS gk_invitations (
            id bytea PRIMARY KEY CHECK (length(id) = 16),
            household_account uuid NOT NULL REFERENCES gk_accounts (id),
            public_key bytea NOT NULL CHECK (length(public_key) = 32),
            owner_keys bytea NOT NULL CHECK (length(owner_keys) = 64),
            invited_by uuid NOT NULL REFERENCES gk_accounts (id),
            created_at timestamptz NOT NULL DEFAULT now(),
            expires_at timestamptz NOT NULL,
            request bytea,
            signature bytea,
            requester_account uuid REFERENCES gk_accounts (id),
            requested_at timestamptz,
            refused_uses integer NOT NULL DEFAULT 0,
            last_refused_at timestamptz,
            admitted_at timestamptz)
        """,
        // A journal's id alone finds it (``journalHome``) without a scan.
        "CREATE INDEX IF NOT EXISTS gk_journals_by_id ON gk_journals (id)",
        // A member sees their own rows of gk_members; the roster is ``roster``'s.
        "ALTER TABLE gk_members ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS gk_account_rows ON gk_members",
        """
        CREATE POLICY gk_account_rows ON gk_members
            USING (member_account = gk_current_account()) WITH CHECK (member_account = gk_current_account())
        """,
        // The owners of a household see and make its invitations.
        "ALTER TABLE gk_invitations ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS gk_account_rows ON gk_invitations",
        """
        CREATE POLICY gk_account_rows ON gk_invitations
            USING (household_account IN (\(ownedHouseholds)))
            WITH CHECK (household_account IN (\(ownedHouseholds)) AND invited_by = gk_current_account())
        """,
    ]

    /// The households the transaction's account is a member of, as a subquery.
    static let households = "SELECT m.household_account FROM gk_members m WHERE m.member_account = gk_current_account()"
    static let ownedHouseholds = households + " AND m.role = 'owner'"

    static let functions: [String] = [journalHome, readers, createHousehold, changeMembership, invitation, requestJoin, roster]

    /// The account holding journal `p_journal` for the transaction's account: its own, else
    /// that of a household it is a member of; NULL for neither. PL/pgSQL, whose statements'
    /// plans a session keeps: every journal route calls it (a SQL function with subqueries is
    /// planned at each call, about 0.26 ms here; this, about as much as a plain read).
    static let journalHome = """
        CREATE OR REPLACE FUNCTION gk_journal_home(p_journal bytea) RETURNS uuid
        LANGUAGE plpgsql STABLE AS $$
        DECLARE
            home uuid;
        BEGIN
            SELECT j.account_id INTO home FROM gk_journals j WHERE j.account_id = gk_current_account() AND j.id = p_journal;
            IF home IS NULL THEN
                SELECT j.account_id INTO home FROM gk_journals j WHERE j.id = p_journal AND j.account_id IN (\(households))
                    ORDER BY j.account_id LIMIT 1;
            END IF;
            RETURN home;
        END
        $$
        """

    /// The accounts told of a change to `p_account`'s journals (``ChangeHub``): a household's
    /// members when the transaction's account is one of them, else the account itself.
    static let readers = """
        CREATE OR REPLACE FUNCTION gk_readers(p_account uuid) RETURNS SETOF uuid
        LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM gk_members WHERE household_account = p_account AND member_account = gk_current_account()) THEN
                RETURN QUERY SELECT member_account FROM gk_members WHERE household_account = p_account;
            ELSIF p_account = gk_current_account() THEN
                RETURN NEXT p_account;
            END IF;
        END
        $$
        """

    /// A household journal, empty, in an account of its own; the transaction's account is
    /// its owner, with its member public keys (signing then sealing). Its id must be new to
    /// the whole service (else unique_violation), so no member ever sees two households of
    /// one id, whoever made the second.
    static let createHousehold = """
        CREATE OR REPLACE FUNCTION gk_create_household(p_journal bytea, p_header bytea, p_genesis bytea, p_keys bytea)
        RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        DECLARE
            household uuid;
        BEGIN
            IF gk_current_account() IS NULL THEN
                RAISE EXCEPTION 'no account' USING ERRCODE = 'GKNOM';
            END IF;
            IF EXISTS (SELECT 1 FROM gk_journals WHERE id = p_journal) THEN
                RAISE EXCEPTION 'a journal of this id exists' USING ERRCODE = 'unique_violation';
            END IF;
            INSERT INTO gk_accounts DEFAULT VALUES RETURNING id INTO household;
            INSERT INTO gk_journals (account_id, id, header, head_sequence, head_hash)
                VALUES (household, p_journal, p_header, 0, p_genesis);
            INSERT INTO gk_members (household_account, member_account, role, member_keys)
                VALUES (household, gk_current_account(), 'owner', p_keys);
        END
        $$
        """

    /// A change of the household `p_household`'s members, run after its epoch frame went in
    /// (whose append locked the journal's row, so two changes of one household never
    /// interleave): `admit` the account that made `p_invitation`'s request, with its member
    /// keys; `remove` or `promote` `p_target` (an owner's); `leave` or `renew` (its member
    /// keys `p_keys`, after a `passwd`: the transaction's account's own). A household keeps one owner. Returns the account concerned; raises
    /// GKNOM (not a member), GKNOO (not an owner), GKLST (the last owner) or GKNOT (no such
    /// member or request). A removed account's live sockets are closed (`<account> close`).
    static let changeMembership = """
        CREATE OR REPLACE FUNCTION gk_change_membership(
            p_household uuid, p_change text, p_target uuid, p_invitation bytea, p_keys bytea)
        RETURNS uuid
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        DECLARE
            caller uuid := gk_current_account();
            caller_role text;
            target uuid := p_target;
            target_role text;
        BEGIN
            SELECT role INTO caller_role FROM gk_members WHERE household_account = p_household AND member_account = caller;
            IF caller_role IS NULL THEN
                RAISE EXCEPTION 'not a member of this household' USING ERRCODE = 'GKNOM';
            END IF;
            IF p_change IN ('leave', 'renew') THEN
                target := caller;
            ELSIF caller_role <> 'owner' THEN
                RAISE EXCEPTION 'not an owner of this household' USING ERRCODE = 'GKNOO';
            END IF;
            IF p_change = 'renew' THEN
                UPDATE gk_members SET member_keys = p_keys WHERE household_account = p_household AND member_account = caller;
                RETURN caller;
            END IF;
            IF p_change = 'admit' THEN
                UPDATE gk_invitations SET admitted_at = now()
                    WHERE id = p_invitation AND household_account = p_household
                        AND requester_account IS NOT NULL AND admitted_at IS NULL
                    RETURNING requester_account INTO target;
                IF target IS NULL THEN
                    RAISE EXCEPTION 'no such join request' USING ERRCODE = 'GKNOT';
                END IF;
                INSERT INTO gk_members (household_account, member_account, role, member_keys)
                    VALUES (p_household, target, 'member', p_keys) ON CONFLICT DO NOTHING;
                RETURN target;
            END IF;
            SELECT role INTO target_role FROM gk_members WHERE household_account = p_household AND member_account = target;
            IF target_role IS NULL OR p_change NOT IN ('remove', 'leave', 'promote') THEN
                RAISE EXCEPTION 'no such member' USING ERRCODE = 'GKNOT';
            END IF;
            IF p_change = 'promote' THEN
                UPDATE gk_members SET role = 'owner' WHERE household_account = p_household AND member_account = target;
                RETURN target;
            END IF;
            IF target_role = 'owner'
                AND (SELECT count(*) FROM gk_members WHERE household_account = p_household AND role = 'owner') = 1
            THEN
                RAISE EXCEPTION 'the last owner' USING ERRCODE = 'GKLST';
            END IF;
            DELETE FROM gk_members WHERE household_account = p_household AND member_account = target;
            PERFORM pg_notify('gk_changes', target::text || ' close');
            RETURN target;
        END
        $$
        """

    /// What a joiner holding an invitation's code learns of it by its id: the household's
    /// journal, the inviting owner's public keys, the invitation's public key, the seconds
    /// left and its state (`open`, `requested` by this account, `used` by another, or
    /// `expired`). With `p_count`, a look at an invitation another account used counts as a
    /// use tried again, for the owners to see.
    static let invitation = """
        CREATE OR REPLACE FUNCTION gk_invitation(p_id bytea, p_count boolean)
        RETURNS TABLE (r_journal bytea, r_owner_keys bytea, r_public_key bytea, r_seconds bigint, r_state text)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        BEGIN
            IF p_count THEN
                UPDATE gk_invitations SET refused_uses = refused_uses + 1, last_refused_at = now()
                    WHERE id = p_id AND requester_account <> gk_current_account();
            END IF;
            RETURN QUERY SELECT j.id, i.owner_keys, i.public_key, greatest(0, extract(epoch FROM i.expires_at - now()))::bigint,
                CASE WHEN i.requester_account IS NOT NULL AND i.requester_account <> gk_current_account() THEN 'used'
                    WHEN i.requester_account IS NOT NULL THEN 'requested'
                    WHEN i.expires_at <= now() THEN 'expired' ELSE 'open' END
            FROM gk_invitations i JOIN gk_journals j ON j.account_id = i.household_account
            WHERE i.id = p_id AND gk_current_account() IS NOT NULL;
        END
        $$
        """

    /// Files the transaction's account's join request (its signature checked already) on
    /// invitation `p_id`: `requested` (again, for the same request), `used` (counted for
    /// the owners), `expired`, or `unknown`.
    static let requestJoin = """
        CREATE OR REPLACE FUNCTION gk_request_join(p_id bytea, p_request bytea, p_signature bytea) RETURNS text
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        DECLARE
            found_invitation gk_invitations%ROWTYPE;
        BEGIN
            IF gk_current_account() IS NULL THEN
                RETURN 'unknown';
            END IF;
            SELECT * INTO found_invitation FROM gk_invitations WHERE id = p_id FOR UPDATE;
            IF NOT FOUND THEN
                RETURN 'unknown';
            END IF;
            IF found_invitation.requester_account = gk_current_account() AND found_invitation.request = p_request THEN
                RETURN 'requested';
            END IF;
            IF found_invitation.requester_account IS NOT NULL THEN
                UPDATE gk_invitations SET refused_uses = refused_uses + 1, last_refused_at = now() WHERE id = p_id;
                RETURN 'used';
            END IF;
            IF found_invitation.expires_at <= now() THEN
                RETURN 'expired';
            END IF;
            UPDATE gk_invitations SET request = p_request, signature = p_signature,
                requester_account = gk_current_account(), requested_at = now() WHERE id = p_id;
            RETURN 'requested';
        END
        $$
        """

    /// The members of `p_household` (account, role, member keys, when they joined), for a
    /// member of it; no row for anyone else.
    static let roster = """
        CREATE OR REPLACE FUNCTION gk_roster(p_household uuid)
        RETURNS TABLE (r_account text, r_role text, r_keys bytea, r_joined bigint)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT member_account::text, role, member_keys, extract(epoch FROM joined_at)::bigint FROM gk_members
            WHERE household_account = p_household
                AND EXISTS (SELECT 1 FROM gk_members
                    WHERE household_account = p_household AND member_account = gk_current_account())
            ORDER BY joined_at, member_account
        $$
        """

    /// The definer functions' signatures, for REVOKE from PUBLIC and GRANT to the serve role.
    static let definers = [
        "gk_readers(uuid)", "gk_create_household(bytea, bytea, bytea, bytea)",
        "gk_change_membership(uuid, text, uuid, bytea, bytea)", "gk_invitation(bytea, boolean)",
        "gk_request_join(bytea, bytea, bytea)", "gk_roster(uuid)",
    ]

    static let revokes = definers.map { "REVOKE ALL ON FUNCTION \($0) FROM PUBLIC" }

    /// The serve role's privileges on households.
    static func grants(to role: String) -> [String] {
        [
            "GRANT SELECT ON gk_members TO \(role)",
            "GRANT SELECT, INSERT, DELETE ON gk_invitations TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_journal_home(bytea) TO \(role)",
        ] + definers.map { "GRANT EXECUTE ON FUNCTION \($0) TO \(role)" }
    }
}
