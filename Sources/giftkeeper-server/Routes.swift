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
        addLoginReportRoutes(to: router, signedIn: signedIn)
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
    /// key's range, so its cost does not grow with the journal's length. In binary
    /// (``BinaryFramePage``) to a device that asks for it, each frame written into the
    /// answer as PostgreSQL gave it; as JSON otherwise.
    private func frames(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let query = request.uri.queryParameters
        guard let after = query["after"].flatMap({ Int64($0) }), after >= 0 else {
            throw HTTPError(.badRequest, message: "after=N is needed")
        }
        let limit = Int64(min(max(query["limit"].flatMap { Int($0) } ?? Wire.maximumPageFrames, 1), Wire.maximumPageFrames))
        let page = try await database.statement(
            "SELECT * FROM gk_frames_after(\(identity.account)::uuid, \(id), \(after), \(limit))"
        ) { rows in
            var head: (Int64, ByteBuffer, ByteBuffer?)?
            var frames: [ByteBuffer] = []
            var bytes = 0
            for try await (sequence, hash, epoch, number, frame) in rows.decode((Int64, ByteBuffer, ByteBuffer?, Int64?, ByteBuffer?).self) {
                head = head ?? (sequence, hash, epoch)
                guard let number, let frame, number == after + 1 + Int64(frames.count),
                    frames.isEmpty || bytes + frame.readableBytes <= Wire.maximumPageBytes
                else { continue }  // the rest is read by the next page
                frames.append(frame)
                bytes += frame.readableBytes
            }
            return head.map { (head: Self.head($0.0, $0.1), epoch: Self.epoch($0.2), frames: frames, bytes: bytes) }
        }
        guard let page else { throw HTTPError(.notFound, message: "no such journal") }
        guard request.headers[.accept]?.contains(BinaryFramePage.mediaType) == true else {
            let frames = page.frames.map { Data($0.readableBytesView) }
            return try json(FramePage(after: UInt64(after), frames: frames, head: page.head, epoch: page.epoch))
        }
        var body = ByteBuffer(
            bytes: BinaryFramePage.header(after: UInt64(after), head: page.head, epoch: page.epoch, frameCount: page.frames.count))
        body.reserveCapacity(body.readableBytes + page.bytes + 4 * page.frames.count)
        for frame in page.frames {
            body.writeBytes(BinaryFramePage.framePrefix(length: frame.readableBytes))
            body.writeImmutableBuffer(frame)
        }
        return Response(status: .ok, headers: [.contentType: BinaryFramePage.mediaType], body: ResponseBody(byteBuffer: body))
    }

    private func append(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let append = try await request.decode(as: AppendRequest.self, context: context)
        try check(append)
        let answer = try await overQuota {
            try await database.statement(appendStatement(append, to: id, as: identity)) { rows in try await Self.appendAnswer(rows) }
        }
        guard let answer else { throw HTTPError(.notFound, message: "no such journal") }
        return try json(answer)
    }

    /// Refuses a malformed append, or one with a frame over the size quota (the frames a
    /// minute are counted by `gk_append` itself).
    func check(_ append: AppendRequest) throws {
        guard !append.frames.isEmpty, append.head.sequence == append.base.sequence + UInt64(append.frames.count),
            append.head.sequence <= UInt64(Int64.max), append.base.hash.count == 32, append.head.hash.count == 32,
            append.post.map({ $0.device.count == 16 && $0.record.count <= 4_096 }) ?? true
        else { throw HTTPError(.badRequest, message: "the frames do not go from the base to the head") }
        guard append.frames.allSatisfy({ $0.count <= quotas.maximumFrameBytes }) else {
            throw HTTPError(.contentTooLarge, message: "a frame is over the \(quotas.maximumFrameBytes)-byte quota")
        }
    }

    /// `gk_append` of `append` to journal `id`, acting for `identity` (one statement: it sets
    /// the account itself, so it runs alone or inside a household's change's transaction).
    func appendStatement(_ append: AppendRequest, to id: ByteBuffer, as identity: DeviceIdentity) -> PostgresQuery {
        let frames = append.frames.map { ByteBuffer(bytes: $0) }
        let device = append.post.map { ByteBuffer(bytes: $0.device) }
        let record = append.post.map { ByteBuffer(bytes: $0.record) }
        return """
            SELECT * FROM gk_append(\(identity.account)::uuid, \(id), \(Int64(append.base.sequence)),
                \(ByteBuffer(bytes: append.base.hash)), \(Int64(append.head.sequence)), \(ByteBuffer(bytes: append.head.hash)),
                \(frames)::bytea[], \(identity.device), \(device)::bytea, \(record)::bytea, \(Int64(quotas.framesPerMinute)))
            """
    }

    /// The answer of ``appendStatement(_:to:as:)``; nil when the account sees no such journal.
    static func appendAnswer(_ rows: PostgresRowSequence) async throws -> AppendAnswer? {
        guard
            let answer = try await rows.decode((Bool, Int64, Int64, ByteBuffer, [ByteBuffer]?, [ByteBuffer]?, ByteBuffer?).self)
                .first(where: { _ in true })
        else { return nil }
        let heads = zip(answer.4 ?? [], answer.5 ?? []).map { PostedHead(device: Data($0.readableBytesView), record: Data($1.readableBytesView)) }
        return AppendAnswer(appended: answer.0, head: head(answer.2, answer.3), heads: heads, epoch: epoch(answer.6))
    }

    /// Runs `body` (an append), naming the frames-a-minute quota (SQLSTATE GK429) as such.
    func overQuota<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError where error.sqlState == "GK429" {
            throw HTTPError(.tooManyRequests, message: "over the quota of \(quotas.framesPerMinute) frames a minute; try again in a minute")
        }
    }

    private func heads(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let heads = try await database.statement("SELECT * FROM gk_heads_of(\(identity.account)::uuid, \(id))") { rows in
            var heads: [PostedHead] = []
            for try await (device, record) in rows.decode((ByteBuffer, ByteBuffer).self) {
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
        let posted = try await database.statement(
            """
            SELECT * FROM gk_post_head(\(identity.account)::uuid, \(id), \(ByteBuffer(bytes: head.device)),
                \(ByteBuffer(bytes: head.record)))
            """
        ) { rows in try await rows.decode(ByteBuffer.self).first { _ in true } }
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
