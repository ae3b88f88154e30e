/// The service's part of failed sign-in reports (SPEC §13; docs/threat-model.md, "Failed
/// sign-ins on a member's other devices"): each device of a member registers a report token
/// at each sign-in (only its BLAKE2b hash is kept, with the member public key the reports
/// are sealed to), and a wrong password posts one sealed report with the token alone into
/// the member's mailbox, which their next signed-in device takes. Everything kept is a hash,
/// a public key, a time and sealed bytes of one size.
enum LoginReportSchema {
    static let tables: [String] =
        [
            // One token per device of a member of a household: replaced at its next sign-in.
            """
            CREATE TABLE IF NOT EXISTS gk_login_tokens (
                household_account uuid NOT NULL REFERENCES gk_accounts (id),
                member_account uuid NOT NULL REFERENCES gk_accounts (id),
                device_id bigint NOT NULL REFERENCES gk_devices (id),
                token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
                sealing_key bytea NOT NULL CHECK (length(sealing_key) = 32),
                last_post_at timestamptz,
                PRIMARY KEY (household_account, member_account, device_id))
            """,
            // A member's mailbox: sealed reports of one size, nothing else (not the device, not the time).
            """
            CREATE TABLE IF NOT EXISTS gk_login_reports (
                household_account uuid NOT NULL REFERENCES gk_accounts (id),
                member_account uuid NOT NULL REFERENCES gk_accounts (id),
                id bigint GENERATED ALWAYS AS IDENTITY,
                report bytea NOT NULL CHECK (length(report) = \(reportBytes)),
                PRIMARY KEY (household_account, member_account, id))
            """,
        ] + ["gk_login_tokens", "gk_login_reports"].flatMap(policy)

    static let reportBytes = 80

    /// A member sees and changes only their own tokens and mailbox.
    static func policy(_ table: String) -> [String] {
        [
            "ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY",
            "DROP POLICY IF EXISTS gk_account_rows ON \(table)",
            """
            CREATE POLICY gk_account_rows ON \(table)
                USING (member_account = gk_current_account()) WITH CHECK (member_account = gk_current_account())
            """,
        ]
    }

    /// Files report `p_report` for the token whose hash is `p_token_hash`, for no account (a
    /// wrong password opens no device key): `kept`; `unknown` (no such token, or its device
    /// revoked, or its member no longer in the household); `stale` (the token names a
    /// sealing key the member no longer has: after a `passwd`, nothing they hold opens it);
    /// `too soon` (one a second per token); `full` (`p_limit` reports wait already).
    static let post = """
        CREATE OR REPLACE FUNCTION gk_post_login_report(p_token_hash bytea, p_report bytea, p_limit integer) RETURNS text
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        DECLARE
            registered gk_login_tokens%ROWTYPE;
            keys_now bytea;
        BEGIN
            SELECT t.* INTO registered FROM gk_login_tokens t
                JOIN gk_devices d ON d.id = t.device_id AND d.account_id = t.member_account AND d.revoked_at IS NULL
                WHERE t.token_hash = p_token_hash FOR UPDATE OF t;
            IF NOT FOUND THEN
                RETURN 'unknown';
            END IF;
            SELECT m.member_keys INTO keys_now FROM gk_members m
                WHERE m.household_account = registered.household_account AND m.member_account = registered.member_account;
            IF NOT FOUND THEN
                RETURN 'unknown';
            END IF;
            IF keys_now IS NULL OR substring(keys_now FROM 33 FOR 32) <> registered.sealing_key THEN
                RETURN 'stale';
            END IF;
            IF registered.last_post_at > clock_timestamp() - interval '1 second' THEN
                RETURN 'too soon';
            END IF;
            UPDATE gk_login_tokens SET last_post_at = clock_timestamp() WHERE token_hash = p_token_hash;
            PERFORM pg_advisory_xact_lock(hashtext(registered.household_account::text || registered.member_account::text));
            IF (SELECT count(*) FROM gk_login_reports
                WHERE household_account = registered.household_account AND member_account = registered.member_account) >= p_limit
            THEN
                RETURN 'full';
            END IF;
            INSERT INTO gk_login_reports (household_account, member_account, report)
                VALUES (registered.household_account, registered.member_account, p_report);
            RETURN 'kept';
        END
        $$
        """

    static let functions = [post, "REVOKE ALL ON FUNCTION gk_post_login_report(bytea, bytea, integer) FROM PUBLIC"]

    /// The serve role's privileges on reports: a device's own token, its member's mailbox.
    static func grants(to role: String) -> [String] {
        [
            "GRANT SELECT, INSERT, UPDATE (token_hash, sealing_key, last_post_at) ON gk_login_tokens TO \(role)",
            "GRANT SELECT, DELETE ON gk_login_reports TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_post_login_report(bytea, bytea, integer) TO \(role)",
        ]
    }
}
