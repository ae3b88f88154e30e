import Foundation
public import Testing

/// The sync service the device suites run through (SPEC §12): `make test` starts one with
/// scripts/test-server.sh (PostgreSQL, a throwaway certificate, `giftkeeper-server` with
/// TLS on loopback) and exports what `scripts/test-server.sh env` prints. Without it the
/// tests that need one are skipped, and the skip says how to start one.
public enum ServiceFixture {
    static let environment = ProcessInfo.processInfo.environment

    /// The service's URL (`https://127.0.0.1:PORT`), or nil when none is set.
    public static let url: String? = environment["GIFTKEEPER_TEST_SERVICE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// The service's database, as its owner (for `pg_dump` and `psql`).
    public static let databaseURL = environment["GIFTKEEPER_TEST_SERVICE_DB_URL"] ?? ""
    /// The throwaway certificate authority a device must trust.
    public static let caFile = environment["GIFTKEEPER_CA_FILE"] ?? ""
    /// The directory of the throwaway certificate and key (`server.pem`, `server.key`), for
    /// a test that runs a service of its own.
    public static let certificateDirectory = environment["GIFTKEEPER_TEST_SERVICE_CERT_DIR"] ?? ""
    /// A port a test may run a service of its own on; 0 lets the system choose one.
    public static let sparePort = environment["GIFTKEEPER_TEST_SERVICE_SPARE_PORT"].flatMap { Int($0) } ?? 0

    /// What a device's process needs to trust the throwaway certificate.
    public static var deviceEnvironment: [String: String] { ["GIFTKEEPER_CA_FILE": caFile] }

    /// The service's URL. Only for tests and suites marked ``Testing/Trait/needsService``,
    /// which are skipped without one (a skip reported as such); elsewhere, no service fails.
    public static func requireURL() throws -> String {
        guard let url else { throw TestSupportError(whyNot.rawValue) }
        return url
    }

    /// Why the tests that need a service do not run.
    public static let whyNot: Comment = """
        GIFTKEEPER_TEST_SERVICE_URL is not set: run 'make test', or start a service with \
        scripts/test-server.sh start && eval "$(scripts/test-server.sh env)"
        """
}

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite only when there is a sync service to test against; it is
    /// reported skipped otherwise, with the reason (``ServiceFixture/whyNot``).
    public static var needsService: Self {
        .enabled(if: ServiceFixture.url != nil, ServiceFixture.whyNot)
    }
}
