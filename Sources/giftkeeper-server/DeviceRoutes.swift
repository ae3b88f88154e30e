import Foundation
import GiftKeeperCrypto
import GiftKeeperWire
import Hummingbird
import HummingbirdAuth
import NIOCore
import PostgresNIO

/// The routes of devices and accounts (SPEC §12): signing in with a device key, signing
/// up, enrolment codes, listing and removing devices.
extension SyncRoutes {
    /// Checks a device's proof: a challenge this service gave out, not expired and not used
    /// before (taken back in the database, so on every process at once), signed with the
    /// key it names.
    func check(_ proof: DeviceProof) async throws {
        let nonce = Array(proof.nonce)
        guard let expires = sessions.expiry(ofNonce: nonce) else {
            throw HTTPError(.unauthorized, message: "the challenge is unknown, used or expired; ask for another")
        }
        guard
            SigningKeyPair.verify(
                signature: Array(proof.signature), of: Wire.proofMessage(nonce: nonce), publicKey: Array(proof.publicKey))
        else { throw HTTPError(.unauthorized, message: "the signature does not verify") }
        let spent = try await database.transaction(account: nil) { connection in
            try await connection.query("SELECT gk_spend_nonce(\(ByteBuffer(bytes: nonce)), \(expires))", logger: database.logger)
                .decode(Bool.self).first { _ in true }
        }
        guard spent == true else {
            throw HTTPError(.unauthorized, message: "the challenge is unknown, used or expired; ask for another")
        }
    }

    func signIn(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let proof = try await request.decode(as: DeviceProof.self, context: context)
        try await check(proof)
        let identity = try await database.transaction(account: nil) { connection in
            try await connection.query(
                "SELECT r_account::text, r_device FROM gk_device_for_key(\(ByteBuffer(bytes: proof.publicKey)))",
                logger: database.logger
            ).decode((String, Int64).self).first { _ in true }
        }
        guard let identity else {
            throw HTTPError(.unauthorized, message: "this device is not enrolled (or was removed)")
        }
        return try json(try sessions.open(DeviceIdentity(account: identity.0, device: identity.1)))
    }

    func signUp(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let signUp = try await request.decode(as: DeviceSignUp.self, context: context)
        try await check(signUp.proof)
        let key = ByteBuffer(bytes: signUp.proof.publicKey)
        let name = Self.deviceName(signUp.deviceName)
        let made = try await enrolling {
            try await database.transaction(account: nil) { connection in
                try await connection.query(
                    "SELECT r_account::text, r_device FROM gk_create_account(\(key), \(name))", logger: database.logger
                ).decode((String, Int64).self).first { _ in true }
            }
        }
        guard let made else { throw HTTPError(.internalServerError, message: "the account was not made") }
        return try json(try sessions.open(DeviceIdentity(account: made.0, device: made.1)), status: .created)
    }

    func redeem(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let signUp = try await request.decode(as: DeviceSignUp.self, context: context)
        try await check(signUp.proof)
        guard let code = signUp.code else { throw HTTPError(.badRequest, message: "no enrolment code") }
        let key = ByteBuffer(bytes: signUp.proof.publicKey)
        let name = Self.deviceName(signUp.deviceName)
        let codeHash = ByteBuffer(bytes: Self.codeHash(code))
        let joined = try await enrolling {
            try await database.transaction(account: nil) { connection in
                try await connection.query(
                    "SELECT r_account::text, r_device FROM gk_redeem_enrolment(\(codeHash), \(key), \(name))",
                    logger: database.logger
                ).decode((String, Int64).self).first { _ in true }
            }
        }
        guard let joined else { throw HTTPError(.forbidden, message: "the enrolment code is unknown, used or expired") }
        return try json(try sessions.open(DeviceIdentity(account: joined.0, device: joined.1)), status: .created)
    }

    /// Runs an enrolment, naming a key enrolled already as a conflict.
    func enrolling<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError where error.sqlState == "23505" {
            throw HTTPError(.conflict, message: "this device key is enrolled already")
        }
    }

    /// A device's name as kept: printable, at most 64 characters.
    static func deviceName(_ name: String) -> String {
        let kept = name.unicodeScalars.filter { $0.properties.generalCategory != .control }
        return String(String.UnicodeScalarView(kept).prefix(64))
    }

    /// What the server keeps of an enrolment code: its hash, so a database dump does not
    /// hold a code that still works.
    static func codeHash(_ code: String) -> [UInt8] {
        Blake2b.hash(Array(code.uppercased().filter { $0 != "-" }.utf8))
    }

    func newEnrolment(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let digits = Wire.hex(try randomBytes(count: 10)).uppercased()
        let code = stride(from: 0, to: digits.count, by: 5).map { start in
            let from = digits.index(digits.startIndex, offsetBy: start)
            return String(digits[from..<digits.index(from, offsetBy: 5)])
        }.joined(separator: "-")
        let codeHash = ByteBuffer(bytes: Self.codeHash(code))
        let seconds = Self.enrolmentLifetimeSeconds
        _ = try await database.transaction(account: identity.account) { connection in
            try await connection.query(
                """
                INSERT INTO gk_enrolments (code_hash, account_id, expires_at)
                VALUES (\(codeHash), gk_current_account(), now() + make_interval(secs => \(seconds)))
                """, logger: database.logger)
        }
        return try json(EnrolmentCode(code: code, expiresInSeconds: seconds), status: .created)
    }

    func devices(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let rows = try await database.transaction(account: identity.account) { connection in
            var rows: [DeviceList.Device] = []
            let query: PostgresQuery = """
                SELECT id, name, public_key, extract(epoch FROM enrolled_at)::bigint FROM gk_devices
                WHERE revoked_at IS NULL ORDER BY id
                """
            for try await (id, name, key, enrolled) in try await connection.query(query, logger: database.logger)
                .decode((Int64, String, ByteBuffer, Int64).self)
            {
                rows.append(
                    DeviceList.Device(
                        id: id, name: name, publicKey: Data(key.readableBytesView), enrolledAt: enrolled, isCurrent: id == identity.device))
            }
            return rows
        }
        return try json(DeviceList(devices: rows))
    }

    func revoke(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let device = try context.parameters.require("device", as: Int64.self)
        let revoked = try await database.transaction(account: identity.account) { connection in
            let revoked = try await connection.query(
                "UPDATE gk_devices SET revoked_at = now() WHERE id = \(device) AND revoked_at IS NULL RETURNING id",
                logger: database.logger
            ).decode(Int64.self).first { _ in true }
            if revoked != nil {
                // Every service process refuses its tokens and closes its sockets (at commit).
                let message = ChangeListener.revocation(DeviceIdentity(account: identity.account, device: device))
                try await connection.query("SELECT pg_notify(\(ChangeListener.channel), \(message))", logger: database.logger)
            }
            return revoked
        }
        guard revoked != nil else { throw HTTPError(.notFound, message: "no such device") }
        sessions.revoke(DeviceIdentity(account: identity.account, device: device))
        return Response(status: .noContent)
    }
}
