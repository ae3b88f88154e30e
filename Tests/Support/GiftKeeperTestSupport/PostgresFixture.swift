import Foundation
public import Testing

/// The PostgreSQL server the store's tests run against: `GIFTKEEPER_TEST_POSTGRES_URL`, which
/// `make test` sets (scripts/test-postgres.sh starts a throwaway server on loopback). Without
/// it the tests that need one are skipped, and the skip says why and how to start one.
public enum PostgresFixture {
    /// The server's URL, or nil when none is set.
    public static let url: String? = ProcessInfo.processInfo.environment["GIFTKEEPER_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Why the tests that need a server do not run.
    public static let whyNot: Comment = """
        GIFTKEEPER_TEST_POSTGRES_URL is not set: run 'make test', or start a server with \
        export GIFTKEEPER_TEST_POSTGRES_URL=$(scripts/test-postgres.sh start)
        """

    /// The server's URL. Only for tests and suites marked ``Testing/Trait/needsPostgres``,
    /// which are skipped without one (a skip reported as such); elsewhere, no server fails.
    public static func requireURL() throws -> String {
        guard let url else { throw TestSupportError(whyNot.rawValue) }
        return url
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite only when there is a PostgreSQL server to test against; it is
    /// reported skipped otherwise, with the reason (``PostgresFixture/whyNot``).
    public static var needsPostgres: Self {
        .enabled(if: PostgresFixture.url != nil, PostgresFixture.whyNot)
    }
}
