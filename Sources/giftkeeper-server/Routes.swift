import Foundation
import GiftKeeperCrypto
import GiftKeeperWire
import Hummingbird
import HummingbirdAuth
import NIOCore
import PostgresNIO

/// The service's routes (SPEC §12; paths in ``Route``): signing in with a device key,
/// accounts and devices, and a journal's cursor — read after a position, append after an
/// expected head, post a device's head. Every database use is one transaction acting for
/// the signed-in device's account, so row-level security shows it nothing else.
struct SyncRoutes: Sendable {
    let database: ServiceDatabase
    let sessions: Sessions
    let quotas: Quotas
    let appendRate: AppendRate

    init(database: ServiceDatabase, sessions: Sessions, quotas: Quotas) {
        self.database = database
        self.sessions = sessions
        self.quotas = quotas
        appendRate = AppendRate(framesPerMinute: quotas.framesPerMinute)
    }

    /// How long an enrolment code is valid.
    static let enrolmentLifetimeSeconds = 600

    /// The routes; with `logRequests`, each request's method and path logged first.
    func router(logRequests: Bool) -> Router<ServiceContext> {
        let router = Router(context: ServiceContext.self)
        if logRequests { router.add(middleware: LogRequestsMiddleware(.notice)) }
        router.post(RouterPath(Route.challenge)) { _, _ in try json(Challenge(nonce: Data(try sessions.newNonce()))) }
        router.post(RouterPath(Route.session)) { request, context in try await signIn(request, context) }
        router.post(RouterPath(Route.accounts)) { request, context in try await signUp(request, context) }
        router.post(RouterPath(Route.redeem)) { request, context in try await redeem(request, context) }

        let signedIn = router.group("v1").add(middleware: BearerAuthenticator(sessions: sessions))
            .add(middleware: IsAuthenticatedMiddleware<ServiceContext>())
        signedIn.post("enrolments") { _, context in try await newEnrolment(context) }
        signedIn.get("devices") { _, context in try await devices(context) }
        signedIn.delete("devices/:device") { _, context in try await revoke(context) }
        signedIn.get("journals") { _, context in try await journals(context) }
        signedIn.post("journals") { request, context in try await createJournal(request, context) }
        signedIn.get("journals/:journal") { _, context in try await journal(context) }
        signedIn.get("journals/:journal/frames") { request, context in try await frames(request, context) }
        signedIn.post("journals/:journal/append") { request, context in try await append(request, context) }
        signedIn.get("journals/:journal/heads") { _, context in try await heads(context) }
        signedIn.put("journals/:journal/heads") { request, context in try await postHead(request, context) }
        addHouseholdRoutes(to: signedIn)
        return router
    }

    // MARK: Journals

    func journalID(_ context: ServiceContext) throws -> ByteBuffer {
        guard let id = Wire.unhex(try context.parameters.require("journal")), id.count == 16 else {
            throw HTTPError(.badRequest, message: "a journal id is 32 hex digits")
        }
        return ByteBuffer(bytes: id)
    }

    private func journals(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let (ids, epoch) = try await database.transaction(account: identity.account) { connection in
            var ids: [Data] = []
            for try await id in try await connection.query("SELECT id FROM gk_journals ORDER BY id", logger: database.logger)
                .decode(ByteBuffer.self)
            {
                ids.append(Data(id.readableBytesView))
            }
            let epoch = try await connection.query("SELECT \(unescaped: Schema.epoch)", logger: database.logger)
                .decode(ByteBuffer?.self).first { _ in true }
            return (ids, Self.epoch(epoch ?? nil))
        }
        return try json(JournalList(journals: ids, epoch: epoch))
    }

    private func createJournal(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let new = try await request.decode(as: NewJournal.self, context: context)
        guard new.journalID.count == 16, new.genesisHash.count == 32, new.header.count <= 4_096 else {
            throw HTTPError(.badRequest, message: "not a journal header")
        }
        let limit = Int64(quotas.journalsPerAccount)
        let made = try await database.transaction(account: identity.account) { connection in
            // Under a lock of the account's, so two first pushes at once cannot both pass the quota.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtext(gk_current_account()::text))", logger: database.logger)
            return try await connection.query(
                """
                INSERT INTO gk_journals (account_id, id, header, head_sequence, head_hash)
                SELECT gk_current_account(), \(ByteBuffer(bytes: new.journalID)), \(ByteBuffer(bytes: new.header)), 0,
                    \(ByteBuffer(bytes: new.genesisHash))
                WHERE (SELECT count(*) FROM gk_journals) < \(limit)
                ON CONFLICT (account_id, id) DO NOTHING RETURNING id
                """, logger: database.logger
            ).decode(ByteBuffer.self).first { _ in true }
        }
        guard made == nil else { return Response(status: .created) }
        let exists = try await database.transaction(account: identity.account) { connection in
            try await connection.query(
                "SELECT 1 FROM gk_journals WHERE id = \(ByteBuffer(bytes: new.journalID))", logger: database.logger
            ).decode(Int32.self).first { _ in true }
        }
        guard exists == nil else { throw HTTPError(.conflict, message: "the account holds this journal already") }
        throw HTTPError(.tooManyRequests, message: "over the quota of \(limit) journals an account")
    }

    private func journal(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let info = try await database.transaction(account: identity.account) { connection in
            try await connection.query(
                """
                SELECT header, head_sequence, head_hash, \(unescaped: Schema.epoch) FROM gk_journals
                WHERE id = \(id) AND account_id = gk_journal_home(id)
                """, logger: database.logger
            ).decode((ByteBuffer, Int64, ByteBuffer, ByteBuffer?).self).first { _ in true }
        }
        guard let info else { throw HTTPError(.notFound, message: "no such journal") }
        return try json(
            JournalInfo(header: Data(info.0.readableBytesView), head: Self.head(info.1, info.2), epoch: Self.epoch(info.3)))
    }

    static func epoch(_ bytes: ByteBuffer?) -> Data? {
        bytes.map { Data($0.readableBytesView) }
    }

    static func head(_ sequence: Int64, _ hash: ByteBuffer) -> WireHead {
        WireHead(sequence: UInt64(max(0, sequence)), hash: Data(hash.readableBytesView))
    }

    /// A page of frames after `after`: bounded in count and bytes, read by the primary
    /// key's range, so its cost does not grow with the journal's length.
    private func frames(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let query = request.uri.queryParameters
        guard let after = query["after"].flatMap({ Int64($0) }), after >= 0 else {
            throw HTTPError(.badRequest, message: "after=N is needed")
        }
        let limit = Int64(min(max(query["limit"].flatMap { Int($0) } ?? Wire.maximumPageFrames, 1), Wire.maximumPageFrames))
        let page = try await database.transaction(account: identity.account) { connection in
            var frames: [Data] = []
            var bytes = 0
            var expected = after + 1
            let rows = try await connection.query(
                """
                SELECT sequence, frame FROM gk_frames
                WHERE account_id = gk_journal_home(\(id)) AND journal_id = \(id) AND sequence > \(after)
                ORDER BY sequence LIMIT \(limit)
                """, logger: database.logger)
            for try await (sequence, frame) in rows.decode((Int64, ByteBuffer).self) {
                guard sequence == expected, frames.isEmpty || bytes + frame.readableBytes <= Wire.maximumPageBytes else {
                    continue  // the rest is read by the next page
                }
                frames.append(Data(frame.readableBytesView))
                bytes += frame.readableBytes
                expected += 1
            }
            // Read after the frames: the head is never before the last frame read.
            let head = try await connection.query(
                "SELECT head_sequence, head_hash, \(unescaped: Schema.epoch) FROM gk_journals WHERE id = \(id) AND account_id = gk_journal_home(id)",
                logger: database.logger
            ).decode((Int64, ByteBuffer, ByteBuffer?).self).first { _ in true }
            return head.map {
                FramePage(after: UInt64(after), frames: frames, head: Self.head($0.0, $0.1), epoch: Self.epoch($0.2))
            }
        }
        guard let page else { throw HTTPError(.notFound, message: "no such journal") }
        return try json(page)
    }

    private func append(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let append = try await request.decode(as: AppendRequest.self, context: context)
        try check(append, account: identity.account)
        let answer = try await database.transaction(account: identity.account) { connection in
            try await appendFrames(append, to: id, device: identity.device, connection)
        }
        guard let answer else { throw HTTPError(.notFound, message: "no such journal") }
        return try json(answer)
    }

    /// Refuses a malformed append, or one over a quota (counting its frames against `account`'s rate).
    func check(_ append: AppendRequest, account: String) throws {
        guard !append.frames.isEmpty, append.head.sequence == append.base.sequence + UInt64(append.frames.count),
            append.head.sequence <= UInt64(Int64.max), append.base.hash.count == 32, append.head.hash.count == 32,
            append.post.map({ $0.device.count == 16 && $0.record.count <= 4_096 }) ?? true
        else { throw HTTPError(.badRequest, message: "the frames do not go from the base to the head") }
        guard append.frames.allSatisfy({ $0.count <= quotas.maximumFrameBytes }) else {
            throw HTTPError(.contentTooLarge, message: "a frame is over the \(quotas.maximumFrameBytes)-byte quota")
        }
        try appendRate.take(append.frames.count, account: account)
    }

    /// `gk_append` of `append` to journal `id` in the caller's transaction; nil when the account sees no such journal.
    func appendFrames(_ append: AppendRequest, to id: ByteBuffer, device: Int64, _ connection: PostgresConnection) async throws -> AppendAnswer? {
        let frames = append.frames.map { ByteBuffer(bytes: $0) }
        let posted = append.post.map { ByteBuffer(bytes: $0.device) }
        let record = append.post.map { ByteBuffer(bytes: $0.record) }
        let answer = try await connection.query(
            """
            SELECT *, \(unescaped: Schema.epoch) FROM gk_append(\(id), \(Int64(append.base.sequence)), \(ByteBuffer(bytes: append.base.hash)),
                \(Int64(append.head.sequence)), \(ByteBuffer(bytes: append.head.hash)), \(frames)::bytea[],
                \(device), \(posted)::bytea, \(record)::bytea)
            """, logger: database.logger
        ).decode((Bool, Int64, Int64, ByteBuffer, [ByteBuffer]?, [ByteBuffer]?, ByteBuffer?).self).first { _ in true }
        guard let answer else { return nil }
        let heads = zip(answer.4 ?? [], answer.5 ?? []).map { PostedHead(device: Data($0.readableBytesView), record: Data($1.readableBytesView)) }
        return AppendAnswer(appended: answer.0, head: Self.head(answer.2, answer.3), heads: heads, epoch: Self.epoch(answer.6))
    }

    private func heads(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let heads = try await database.transaction(account: identity.account) { connection in
            var heads: [PostedHead] = []
            for try await (device, record) in try await connection.query(
                "SELECT device, record FROM gk_heads WHERE account_id = gk_journal_home(\(id)) AND journal_id = \(id) ORDER BY device",
                logger: database.logger
            ).decode((ByteBuffer, ByteBuffer).self) {
                heads.append(PostedHead(device: Data(device.readableBytesView), record: Data(record.readableBytesView)))
            }
            return heads
        }
        return try json(PostedHeads(heads: heads))
    }

    private func postHead(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let head = try await request.decode(as: PostedHead.self, context: context)
        guard head.device.count == 16, head.record.count <= 4_096 else {
            throw HTTPError(.badRequest, message: "not a device head")
        }
        let posted = try await database.transaction(account: identity.account) { connection in
            try await connection.query(
                """
                INSERT INTO gk_heads (account_id, journal_id, device, record)
                SELECT account_id, id, \(ByteBuffer(bytes: head.device)), \(ByteBuffer(bytes: head.record))
                FROM gk_journals WHERE account_id = gk_journal_home(\(id)) AND id = \(id)
                ON CONFLICT (account_id, journal_id, device) DO UPDATE SET posted_at = now(), record = CASE
                    WHEN gk_head_sequence(EXCLUDED.record) >= gk_head_sequence(gk_heads.record) THEN EXCLUDED.record
                    ELSE gk_heads.record END
                RETURNING device
                """, logger: database.logger
            ).decode(ByteBuffer.self).first { _ in true }
        }
        guard posted != nil else { throw HTTPError(.notFound, message: "no such journal") }
        return Response(status: .noContent)
    }
}

/// `value` as a JSON answer.
func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let data = try JSONEncoder().encode(value)
    return Response(
        status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}
