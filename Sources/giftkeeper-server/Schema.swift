import PostgresNIO

/// The service's tables, row-level security and functions (SPEC §12), made by
/// `giftkeeper-server migrate` as their owner. One set of tables for every account: each
/// row names its account, and every policy admits only the rows of the account set for
/// the transaction (`set_config('giftkeeper.account', …, true)`, transaction-local, so a
/// pooled connection — PgBouncer's transaction pooling included — never carries one
/// account's setting into another's transaction). The serve role owns nothing, cannot
/// bypass row-level security, and gets only the privileges listed in ``grants(to:)``.
///
/// Three functions run as the owner (`SECURITY DEFINER`) because they must look across
/// accounts, each for one narrow purpose: finding the account of a device's public key
/// (signing in), making an account with its first device, and redeeming an enrolment code;
/// and those of households (``HouseholdSchema``), which look across a household's members.
enum Schema {
    /// The statements, in order; each is idempotent, so `migrate` can run again.
    static let statements: [String] =
        [
            """
            CREATE TABLE IF NOT EXISTS gk_accounts (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                created_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS gk_devices (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id uuid NOT NULL REFERENCES gk_accounts (id),
                public_key bytea NOT NULL UNIQUE CHECK (length(public_key) = 32),
                name text NOT NULL,
                enrolled_at timestamptz NOT NULL DEFAULT now(),
                revoked_at timestamptz)
            """,
            """
            CREATE TABLE IF NOT EXISTS gk_enrolments (
                code_hash bytea PRIMARY KEY,
                account_id uuid NOT NULL REFERENCES gk_accounts (id),
                expires_at timestamptz NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS gk_journals (
                account_id uuid NOT NULL REFERENCES gk_accounts (id),
                id bytea NOT NULL CHECK (length(id) = 16),
                header bytea NOT NULL,
                head_sequence bigint NOT NULL,
                head_hash bytea NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (account_id, id))
            """,
            """
            CREATE TABLE IF NOT EXISTS gk_frames (
                account_id uuid NOT NULL,
                journal_id bytea NOT NULL,
                sequence bigint NOT NULL,
                frame bytea NOT NULL,
                device_id bigint NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (account_id, journal_id, sequence),
                FOREIGN KEY (account_id, journal_id) REFERENCES gk_journals (account_id, id))
            """,
            """
            CREATE TABLE IF NOT EXISTS gk_heads (
                account_id uuid NOT NULL,
                journal_id bytea NOT NULL,
                device bytea NOT NULL,
                record bytea NOT NULL,
                posted_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (account_id, journal_id, device),
                FOREIGN KEY (account_id, journal_id) REFERENCES gk_journals (account_id, id))
            """,
            // The server's epoch: one row, a new random value after each restore of the
            // database from a backup (`giftkeeper-server restored`), which a dump brings
            // back as it was; every read tells it to the device (``Schema/epoch``).
            """
            CREATE TABLE IF NOT EXISTS gk_server (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                epoch bytea NOT NULL CHECK (length(epoch) = 16),
                changed_at timestamptz NOT NULL DEFAULT now())
            """,
            "INSERT INTO gk_server (epoch) VALUES (uuid_send(gen_random_uuid())) ON CONFLICT (singleton) DO NOTHING",
            // The key of the challenges' and tokens' MACs (``Sessions``), the same for every
            // service process; 244 random bits from PostgreSQL's strong random source.
            """
            CREATE TABLE IF NOT EXISTS gk_token_key (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                key bytea NOT NULL CHECK (length(key) = 32))
            """,
            """
            INSERT INTO gk_token_key (key) VALUES (uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()))
            ON CONFLICT (singleton) DO NOTHING
            """,
            // Challenges taken back (until they expire), so each signs in once on any process.
            "CREATE TABLE IF NOT EXISTS gk_spent_nonces (nonce bytea PRIMARY KEY, expires_at timestamptz NOT NULL)",
            // The account this transaction acts for: none (NULL, which matches no row) unless set.
            """
            CREATE OR REPLACE FUNCTION gk_current_account() RETURNS uuid
            LANGUAGE sql STABLE AS $$ SELECT nullif(current_setting('giftkeeper.account', true), '')::uuid $$
            """,
        ] + HouseholdSchema.tables + ["gk_accounts", "gk_devices", "gk_enrolments", "gk_journals", "gk_frames", "gk_heads"].flatMap(policy)
        + HouseholdSchema.functions + functions + HouseholdSchema.revokes + cursorStatements + LoginReportSchema.tables
        + LoginReportSchema.functions

    /// The server's epoch, as a column of a query (NULL before `migrate` made it).
    static let epoch = "(SELECT epoch FROM gk_server)"

    /// What `giftkeeper-server restored` runs as the owner: a new epoch, which every device
    /// is told at its next read. Returns the new epoch.
    static let newEpoch = "UPDATE gk_server SET epoch = uuid_send(gen_random_uuid()), changed_at = now() RETURNING epoch"

    /// Row-level security on `table`: the rows of the transaction's account only, and for
    /// a journal's tables those of the households it is a member of as well (``HouseholdSchema``).
    static func policy(_ table: String) -> [String] {
        let column = table == "gk_accounts" ? "id" : "account_id"
        let rows =
            ["gk_journals", "gk_frames", "gk_heads"].contains(table)
            ? "\(column) = gk_current_account() OR \(column) IN (\(HouseholdSchema.households))"
            : "\(column) = gk_current_account()"
        return [
            "ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY",
            "DROP POLICY IF EXISTS gk_account_rows ON \(table)",
            "CREATE POLICY gk_account_rows ON \(table) USING (\(rows)) WITH CHECK (\(rows))",
        ]
    }

    static let functions: [String] = [
        // The sequence number in a device's head record (in clear, at bytes 40–47, little
        // endian; 0 for a record too short to hold one): a device's head is replaced only by
        // one at least as far along, so two processes of one device posting at once leave the
        // newer, and devices can hold the server to never showing an older one. One
        // expression of its seven low bytes, so PostgreSQL inlines it into the statement
        // that calls it (a SQL function with a subquery is planned again at each call:
        // 0.2 ms of an append's 0.6 ms in PostgreSQL, measured under load).
        """
        CREATE OR REPLACE FUNCTION gk_head_sequence(p_record bytea) RETURNS bigint
        LANGUAGE sql IMMUTABLE AS $$
            SELECT CASE WHEN length(p_record) < 48 THEN 0
                ELSE get_byte(p_record, 40)::bigint + (get_byte(p_record, 41)::bigint << 8)
                    + (get_byte(p_record, 42)::bigint << 16) + (get_byte(p_record, 43)::bigint << 24)
                    + (get_byte(p_record, 44)::bigint << 32) + (get_byte(p_record, 45)::bigint << 40)
                    + (get_byte(p_record, 46)::bigint << 48)
            END
        $$
        """,
        // Signing in: the account and device of an enrolled, unrevoked public key.
        """
        CREATE OR REPLACE FUNCTION gk_device_for_key(p_key bytea)
        RETURNS TABLE (r_account uuid, r_device bigint)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT account_id, id FROM gk_devices WHERE public_key = p_key AND revoked_at IS NULL
        $$
        """,
        // Takes a challenge back: true the first time, false after (until it expires).
        """
        CREATE OR REPLACE FUNCTION gk_spend_nonce(p_nonce bytea, p_expires bigint) RETURNS boolean
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        BEGIN
            DELETE FROM gk_spent_nonces WHERE expires_at < now();
            INSERT INTO gk_spent_nonces VALUES (p_nonce, to_timestamp(p_expires)) ON CONFLICT DO NOTHING;
            RETURN FOUND;
        END
        $$
        """,
        // The devices revoked in the last `p_seconds` (a service process that was not
        // listening refuses their tokens all the same).
        """
        CREATE OR REPLACE FUNCTION gk_recent_revocations(p_seconds bigint)
        RETURNS TABLE (r_account uuid, r_device bigint)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT account_id, id FROM gk_devices WHERE revoked_at > now() - make_interval(secs => p_seconds)
        $$
        """,
        // A new account and its first device (a key enrolled already raises unique_violation).
        """
        CREATE OR REPLACE FUNCTION gk_create_account(p_key bytea, p_name text)
        RETURNS TABLE (r_account uuid, r_device bigint)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        DECLARE
            account uuid;
        BEGIN
            INSERT INTO gk_accounts DEFAULT VALUES RETURNING id INTO account;
            RETURN QUERY INSERT INTO gk_devices (account_id, public_key, name) VALUES (account, p_key, p_name)
                RETURNING account_id, id;
        END
        $$
        """,
        // Redeems a one-time code: the device joins the code's account; no row when the
        // code is unknown, used or expired.
        """
        CREATE OR REPLACE FUNCTION gk_redeem_enrolment(p_code_hash bytea, p_key bytea, p_name text)
        RETURNS TABLE (r_account uuid, r_device bigint)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
        DECLARE
            account uuid;
        BEGIN
            DELETE FROM gk_enrolments WHERE expires_at < now();
            DELETE FROM gk_enrolments WHERE code_hash = p_code_hash RETURNING account_id INTO account;
            IF account IS NULL THEN
                RETURN;
            END IF;
            RETURN QUERY INSERT INTO gk_devices (account_id, public_key, name) VALUES (account, p_key, p_name)
                RETURNING account_id, id;
        END
        $$
        """,
        "REVOKE ALL ON FUNCTION gk_device_for_key(bytea) FROM PUBLIC",
        "REVOKE ALL ON FUNCTION gk_spend_nonce(bytea, bigint) FROM PUBLIC",
        "REVOKE ALL ON FUNCTION gk_recent_revocations(bigint) FROM PUBLIC",
        "REVOKE ALL ON FUNCTION gk_create_account(bytea, text) FROM PUBLIC",
        "REVOKE ALL ON FUNCTION gk_redeem_enrolment(bytea, bytea, text) FROM PUBLIC",
    ]

    /// The serve role's privileges: what the service does, nothing more. `role` is a
    /// checked identifier (``isIdentifier(_:)``).
    static func grants(to role: String) -> [String] {
        [
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
            "GRANT USAGE ON SCHEMA public TO \(role)",
            "GRANT SELECT ON gk_accounts TO \(role)",
            "GRANT SELECT ON gk_server TO \(role)",
            "GRANT SELECT, UPDATE (revoked_at) ON gk_devices TO \(role)",
            "GRANT INSERT ON gk_enrolments TO \(role)",
            "GRANT SELECT, INSERT, UPDATE (head_sequence, head_hash) ON gk_journals TO \(role)",
            "GRANT SELECT, INSERT ON gk_frames TO \(role)",
            "GRANT SELECT, INSERT, UPDATE (record, posted_at) ON gk_heads TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_current_account() TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_head_sequence(bytea) TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_device_for_key(bytea) TO \(role)",
            "GRANT SELECT ON gk_token_key TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_spend_nonce(bytea, bigint) TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_recent_revocations(bigint) TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_create_account(bytea, text) TO \(role)",
            "GRANT EXECUTE ON FUNCTION gk_redeem_enrolment(bytea, bytea, text) TO \(role)",
        ] + HouseholdSchema.grants(to: role) + cursorGrants(to: role) + LoginReportSchema.grants(to: role)
    }

    /// Makes the serve role when it does not exist: it logs in, and is nothing else (no
    /// superuser, no roles or databases made, no bypassing row-level security).
    static func createRole(_ role: String) -> String {
        """
        DO $$ BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(role)') THEN
                CREATE ROLE \(role) LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS;
            END IF;
        END $$
        """
    }

    /// No role may connect to the database unless granted: `CONNECT` taken from `PUBLIC`,
    /// given to the serve role (the owner connects as owner).
    static func restrictConnect(to role: String) -> String {
        """
        DO $$ BEGIN
            EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM PUBLIC', current_database());
            EXECUTE format('GRANT CONNECT ON DATABASE %I TO \(role)', current_database());
        END $$
        """
    }

    /// Whether `name` is a plain lower-case SQL identifier (safe to write into a statement).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        return name.utf8.count <= 63
            && name.utf8.allSatisfy {
                $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            }
    }
}
