/// The cursor's statements (SPEC §12): an append, a page of frames, the devices' heads
/// read and posted. Each is one statement in a transaction of its own — one round trip to
/// PostgreSQL, not `BEGIN`, the settings, the statement and `COMMIT` — because each is a
/// function that takes the account and sets it for its transaction
/// (`set_config('giftkeeper.account', …, true)`) before it touches a row: row-level
/// security holds as for every other statement, and the setting ends with the implicit
/// transaction (PgBouncer's transaction pooling included). The statement and idle limits
/// are the serve role's own (``Schema/limits(for:)``). They run as the serve role, never
/// as their owner. Each acts on the journal's home (``HouseholdSchema/journalHome``): the
/// account's own journal, or a household's it is a member of.
extension Schema {
    static let cursorFunctions: [String] = [
        // The account's frames appended in the current minute, counted in the append's
        // own statement, so every service process counts against one quota.
        """
        CREATE TABLE IF NOT EXISTS gk_append_counts (
            account_id uuid PRIMARY KEY REFERENCES gk_accounts (id),
            window_start timestamptz NOT NULL,
            frames bigint NOT NULL)
        """,
        // Before the account and the quota were parameters (one statement instead of four).
        "DROP FUNCTION IF EXISTS gk_append(bytea, bigint, bytea, bigint, bytea, bytea[], bigint, bytea, bytea)",
        // An append: the journal's head moves only if it is still the batch's base (the
        // update locks the row, and one that waited for another append's lock looks at the
        // row again); the account's count of the minute grows by the frames, and over
        // `p_frames_a_minute` the whole statement fails (SQLSTATE GK429: nothing written);
        // the frames go in after the base, the device's head is posted, the service
        // processes are notified. The answer says whether it moved, how many frames went
        // in, the head (the one that won, on a conflict), the posted heads and the epoch.
        """
        CREATE OR REPLACE FUNCTION gk_append(
            p_account uuid, p_journal bytea, p_base_sequence bigint, p_base_hash bytea, p_new_sequence bigint,
            p_new_hash bytea, p_frames bytea[], p_device_id bigint, p_head_device bytea, p_head_record bytea,
            p_frames_a_minute bigint)
        RETURNS TABLE (r_moved boolean, r_inserted bigint, r_head_sequence bigint, r_head_hash bytea,
            r_devices bytea[], r_records bytea[], r_epoch bytea)
        LANGUAGE plpgsql AS $$
        DECLARE
            stored bigint := 0;
            counted bigint;
            home uuid;
        BEGIN
            PERFORM set_config('giftkeeper.account', p_account::text, true);
            -- The account's own journal, or a household's it is a member of.
            home := gk_journal_home(p_journal);
            UPDATE gk_journals j SET head_sequence = p_new_sequence, head_hash = p_new_hash
                WHERE j.account_id = home AND j.id = p_journal
                    AND j.head_sequence = p_base_sequence AND j.head_hash = p_base_hash;
            IF NOT FOUND THEN
                RETURN QUERY SELECT false, 0::bigint, j.head_sequence, j.head_hash, NULL::bytea[], NULL::bytea[],
                        (SELECT epoch FROM gk_server)
                    FROM gk_journals j WHERE j.account_id = home AND j.id = p_journal;
                RETURN;
            END IF;
            INSERT INTO gk_append_counts AS c (account_id, window_start, frames)
                VALUES (p_account, now(), cardinality(p_frames))
                ON CONFLICT (account_id) DO UPDATE SET
                    window_start = CASE WHEN c.window_start > now() - interval '1 minute' THEN c.window_start ELSE now() END,
                    frames = CASE WHEN c.window_start > now() - interval '1 minute' THEN c.frames + EXCLUDED.frames
                        ELSE EXCLUDED.frames END
                RETURNING c.frames INTO counted;
            IF counted > p_frames_a_minute THEN
                RAISE EXCEPTION 'over the quota of % frames a minute', p_frames_a_minute USING ERRCODE = 'GK429';
            END IF;
            INSERT INTO gk_frames (account_id, journal_id, sequence, frame, device_id)
                SELECT home, p_journal, p_base_sequence + f.n, f.frame, p_device_id
                FROM unnest(p_frames) WITH ORDINALITY AS f(frame, n);
            GET DIAGNOSTICS stored = ROW_COUNT;
            IF p_head_device IS NOT NULL THEN
                INSERT INTO gk_heads AS h (account_id, journal_id, device, record)
                    VALUES (home, p_journal, p_head_device, p_head_record)
                    ON CONFLICT (account_id, journal_id, device) DO UPDATE SET posted_at = now(), record = CASE
                        WHEN gk_head_sequence(EXCLUDED.record) >= gk_head_sequence(h.record) THEN EXCLUDED.record
                        ELSE h.record END;
            END IF;
            -- Delivered at commit to the service processes listening (never to a device): for
            -- each account that reads the journal, its own or a household's members.
            IF home = p_account THEN
                PERFORM pg_notify('gk_changes', p_account::text || ' ' || encode(p_journal, 'hex') || ' ' || p_new_sequence::text);
            ELSE
                PERFORM pg_notify('gk_changes', r::text || ' ' || encode(p_journal, 'hex') || ' ' || p_new_sequence::text)
                    FROM gk_readers(home) r;
            END IF;
            RETURN QUERY SELECT true, stored, p_new_sequence, p_new_hash,
                    array_agg(h.device ORDER BY h.device), array_agg(h.record ORDER BY h.device),
                    (SELECT epoch FROM gk_server)
                FROM gk_heads h WHERE h.account_id = home AND h.journal_id = p_journal;
        END
        $$
        """,
        // A page: at most `p_limit` frames after `p_after`, by the primary key's range, each
        // row with the journal's head and the epoch as one snapshot saw them (the head is
        // never before the last frame); one row of NULL frame when there is none after, no
        // row when the account holds no such journal.
        """
        CREATE OR REPLACE FUNCTION gk_frames_after(p_account uuid, p_journal bytea, p_after bigint, p_limit bigint)
        RETURNS TABLE (r_head_sequence bigint, r_head_hash bytea, r_epoch bytea, r_sequence bigint, r_frame bytea)
        LANGUAGE plpgsql AS $$
        DECLARE
            home uuid;
        BEGIN
            PERFORM set_config('giftkeeper.account', p_account::text, true);
            home := gk_journal_home(p_journal);
            RETURN QUERY SELECT j.head_sequence, j.head_hash, (SELECT epoch FROM gk_server), f.sequence, f.frame
                FROM gk_journals j LEFT JOIN LATERAL (
                    SELECT g.sequence, g.frame FROM gk_frames g
                    WHERE g.account_id = home AND g.journal_id = p_journal AND g.sequence > p_after
                    ORDER BY g.sequence LIMIT p_limit) f ON true
                WHERE j.account_id = home AND j.id = p_journal
                ORDER BY f.sequence;
        END
        $$
        """,
        // The devices' posted heads of a journal.
        """
        CREATE OR REPLACE FUNCTION gk_heads_of(p_account uuid, p_journal bytea)
        RETURNS TABLE (r_device bytea, r_record bytea)
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM set_config('giftkeeper.account', p_account::text, true);
            RETURN QUERY SELECT h.device, h.record FROM gk_heads h
                WHERE h.account_id = gk_journal_home(p_journal) AND h.journal_id = p_journal ORDER BY h.device;
        END
        $$
        """,
        // Posts a device's head (kept only when at least as far along as the one there);
        // no row when the account holds no such journal.
        """
        CREATE OR REPLACE FUNCTION gk_post_head(p_account uuid, p_journal bytea, p_device bytea, p_record bytea)
        RETURNS SETOF bytea
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM set_config('giftkeeper.account', p_account::text, true);
            RETURN QUERY INSERT INTO gk_heads AS h (account_id, journal_id, device, record)
                SELECT j.account_id, j.id, p_device, p_record FROM gk_journals j
                WHERE j.account_id = gk_journal_home(p_journal) AND j.id = p_journal
                ON CONFLICT (account_id, journal_id, device) DO UPDATE SET posted_at = now(), record = CASE
                    WHEN gk_head_sequence(EXCLUDED.record) >= gk_head_sequence(h.record) THEN EXCLUDED.record
                    ELSE h.record END
                RETURNING h.device;
        END
        $$
        """,
    ]

    /// The cursor's table (with its row-level security) and functions, which only the serve
    /// role may run.
    static var cursorStatements: [String] {
        cursorFunctions + policy("gk_append_counts") + cursorSignatures.map { "REVOKE ALL ON FUNCTION \($0) FROM PUBLIC" }
    }

    /// What the serve role may do with them.
    static func cursorGrants(to role: String) -> [String] {
        ["GRANT SELECT, INSERT, UPDATE ON gk_append_counts TO \(role)"]
            + cursorSignatures.map { "GRANT EXECUTE ON FUNCTION \($0) TO \(role)" }
    }

    /// The cursor functions' signatures, for the grants.
    static let cursorSignatures = [
        "gk_append(uuid, bytea, bigint, bytea, bigint, bytea, bytea[], bigint, bytea, bytea, bigint)",
        "gk_frames_after(uuid, bytea, bigint, bigint)", "gk_heads_of(uuid, bytea)", "gk_post_head(uuid, bytea, bytea, bytea)",
    ]

    /// The serve role's own limits, for every session it opens (directly or through
    /// PgBouncer): a statement that runs longer, or a transaction left idle (a node stalled
    /// mid-request), is ended by PostgreSQL, so a stuck request never holds a journal's row
    /// lock for long. Statements of one round trip set no limit themselves.
    static func limits(for role: String) -> [String] {
        [
            "ALTER ROLE \(role) SET statement_timeout = '\(TransactionLimits.statementTimeout)'",
            "ALTER ROLE \(role) SET idle_in_transaction_session_timeout = '\(TransactionLimits.idleInTransactionTimeout)'",
        ]
    }
}
