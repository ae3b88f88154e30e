import Foundation
public import GiftKeeperCrypto
public import GiftKeeperJournal
public import GiftKeeperWire
import Glibc
import NIOHTTP1

/// A journal's copy on a sync service (SPEC §12), seen from a device: a
/// ``SharedFrameStore`` over HTTPS.
///
/// Reading is a cursor: pages of frames after this handle's head (``pull()``), each frame
/// verified against the chain before it is taken in (``VerifiedFrames``), so a service
/// that drops, reorders, replays or alters a frame is refused with its position. An
/// append is one request: the frames, the base they go after, and the device's head to
/// post; the service appends them only if the journal's head is still that base and
/// answers with the head that won otherwise. Waiting for frames listens to the service's
/// live changes (``LiveChanges``) and reads when they name this journal; without that
/// socket it asks the service for a page after the head once per ``pollInterval``, each ask
/// under a short deadline.
public final class ServiceFrameStore: SharedFrameStore {
    public let name: String
    public var header: JournalHeader { frames.header }
    public var head: JournalHead { frames.head }
    public var frameIndex: FrameIndex { frames.index }
    /// The service's epoch as its last answer gave it (``JournalInfo/epoch``).
    public private(set) var epoch: [UInt8]?

    let connection: ServiceConnection
    let journalID: [UInt8]
    private var frames: VerifiedFrames
    /// Set when an answer did not come to an append: its outcome is unknown, so this
    /// handle cannot tell which head it is at, and writes nothing more.
    private var isUnusable = false
    /// When this handle last read from the service.
    private var lastPull = ContinuousClock.now
    /// Set when an append found the service's head moved: the next wait reads at once.
    private var mustPull = false
    /// The service's live changes for this journal, once a wait started them.
    private let live = LiveChanges()
    private var liveStarted = false
    /// The live changes' count when this handle last read.
    private var heardChanges = 0
    /// Whether a wait starts the live socket (a shell, which waits at its prompt); a one-shot,
    /// which only catches up once, reads with its cursor alone (``ServiceRemote/listensForChanges``).
    var listens = true

    /// Asked this often (ms) while a shell waits at its prompt without the live socket.
    static let pollInterval = 1_000
    /// Asked this often (s) with the live socket open, in case a message was lost.
    static let liveFallback: Int64 = 60
    /// The deadline of a look for new frames while a shell waits: short, so a link that
    /// went silent costs the prompt at most this.
    static let pollDeadline = Duration.seconds(2)

    init(connection: ServiceConnection, journalID: [UInt8], frames: VerifiedFrames) {
        self.connection = connection
        self.journalID = journalID
        self.frames = frames
        name = frames.path
    }

    deinit {
        live.stop()
    }

    /// How a journal is named in messages: the service and the start of the journal's id.
    static func name(_ connection: ServiceConnection, _ journalID: [UInt8]) -> String {
        connection.name + "#" + hexString(journalID.prefix(4))
    }

    /// Opens the service's copy of `journalID` and takes in (verifying) every frame it
    /// has; nil when the service holds no such journal for this account.
    static func open(connection: ServiceConnection, journalID: [UInt8], known: FrameBatch? = nil) throws(JournalError)
        -> ServiceFrameStore?
    {
        guard
            let info = try connection.call(.GET, Route.journal(journalID), answer: JournalInfo.self, allowingMissing: true)
        else { return nil }
        let name = Self.name(connection, journalID)
        let header = try VerifiedFrames.header(Array(info.header), path: name)
        guard header.journalID == journalID else {
            throw JournalError(.corrupt(JournalProblem(sequence: 0, offset: nil, damage: .foreignHeader)), path: name)
        }
        if let known, known.base == JournalHead(sequence: 0, hash: header.genesisHash) {
            // A cursor: the frames this device saw the service hold are its own; only those
            // after them are read. A service behind them, or whose next frame does not chain
            // to them, is read whole below, for the sync's plan to say what it holds.
            var frames = VerifiedFrames(header: header, path: name)
            frames.accept(known)
            let store = ServiceFrameStore(connection: connection, journalID: journalID, frames: frames)
            store.epoch = info.epoch.map { Array($0) }
            do throws(JournalError) {
                if try store.pull(expectingAtLeast: known.head) { return store }
            } catch {
                guard case .corrupt = error.code else { throw error }
            }
        }
        let store = ServiceFrameStore(
            connection: connection, journalID: journalID, frames: VerifiedFrames(header: header, path: name))
        store.epoch = info.epoch.map { Array($0) }
        try store.pull()
        return store
    }

    /// Makes the service's copy of the journal whose header is `header` (the first push).
    /// - Throws: ``JournalError/Code/alreadyExists`` when the account holds it already.
    static func create(connection: ServiceConnection, header: JournalHeader) throws(JournalError) -> ServiceFrameStore {
        let name = Self.name(connection, header.journalID)
        let new = NewJournal(header: Data(header.encoded), journalID: Data(header.journalID), genesisHash: Data(header.genesisHash))
        let (status, body) = try connection.send(.POST, Route.journals, body: new)
        if status == 409 { throw JournalError(.alreadyExists, path: name) }
        try connection.check(status, body)
        let store = ServiceFrameStore(
            connection: connection, journalID: header.journalID, frames: VerifiedFrames(header: header, path: name))
        // The server's epoch, which a sync takes once it pushed the journal.
        store.epoch = try connection.call(.GET, Route.journal(header.journalID), answer: JournalInfo.self)?.epoch.map { Array($0) }
        return store
    }

    // MARK: FrameStore

    public func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome {
        try append(batch, posting: nil).outcome
    }

    public func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws {
        try frames.read(after: sequence, progress: progress, body)
    }

    /// The frames as they came from the service, verified once as they were taken in.
    public func storedFrames() -> FrameBatch {
        frames.storedFrames()
    }

    public func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        if listens, !liveStarted { liveStarted = connection.startLive(live, journalID: journalID) }
        let start = ContinuousClock.now
        while true {
            if sequence < head.sequence { return true }
            let now = ContinuousClock.now
            // With the socket open: read when it told of a change (and now and then anyway);
            // without: poll.
            let heard = live.count
            let due =
                live.isOpen
                ? heard != heardChanges || now - lastPull >= .seconds(Self.liveFallback)
                : now - lastPull >= .milliseconds(Self.pollInterval)
            if mustPull || due {
                mustPull = false
                heardChanges = heard
                try pull(deadline: Self.pollDeadline)
                if sequence < head.sequence { return true }
            }
            guard ContinuousClock.now - start < .milliseconds(milliseconds) else { return false }
            usleep(10_000)
        }
    }

    /// Reads the frames after this handle's head from the service, page by page, verifying
    /// each against the chain before taking it in. With `expected` (the handle's head when
    /// it holds frames it did not read from the service), false — nothing read — when the
    /// service's head is behind it, or at its position with another hash. Without, a service
    /// found behind this handle's head, at it with another hash, or in another epoch (a
    /// restore) is read again from its first frame, for the sync's plan to say what it holds.
    @discardableResult
    func pull(deadline: Duration? = nil, expectingAtLeast expected: JournalHead? = nil) throws(JournalError) -> Bool {
        lastPull = .now
        var first = true
        var emptyPages = 0
        while true {
            let after = head.sequence
            guard let page = try connection.framePage(journalID, after: after, deadline: deadline) else {
                throw JournalError(.unreachable(.journalGone), path: name)
            }
            guard page.after == after else { throw JournalError(.unreachable(.unexpectedAnswer), path: name) }
            let mine = expected ?? head
            let behind = page.head.sequence < mine.sequence
            let forked = page.head.sequence == mine.sequence && Array(page.head.hash) != mine.hash
            let newEpoch = page.epoch.map { told in epoch.map { $0 != Array(told) } ?? false } ?? false
            if let epoch = page.epoch { self.epoch = Array(epoch) }
            if first, expected != nil, behind || forked { return false }
            if first, after > 0, behind || forked || newEpoch {
                frames = VerifiedFrames(header: header, path: name)
                first = false
                continue
            }
            first = false
            if page.frames.isEmpty, page.head.sequence > after {
                // Frames it names and does not send: appended between its two reads (asked
                // again), or dropped, or out of their place (refused).
                emptyPages += 1
                guard emptyPages > 1 else { continue }
                let problem = JournalProblem(sequence: after + 1, offset: nil, damage: .framesWithheld(head: page.head.sequence))
                throw JournalError(.corrupt(problem), path: name)
            }
            try frames.takeIn(page.frames)
            live.hold(head.sequence)
            if page.frames.isEmpty || head.sequence >= page.head.sequence { return true }
        }
    }

    // MARK: SharedFrameStore

    public func postDeviceHead(device: [UInt8], record: [UInt8]) throws(JournalError) {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        _ = try connection.call(
            .PUT, Route.heads(journalID), body: PostedHead(device: Data(device), record: Data(record)), answer: Empty.self)
    }

    public func deviceHeads() throws(JournalError) -> [[UInt8]: [UInt8]] {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        guard let posted = try connection.call(.GET, Route.heads(journalID), answer: PostedHeads.self) else { return [:] }
        return Self.heads(posted.heads)
    }

    static func heads(_ posted: [PostedHead]) -> [[UInt8]: [UInt8]] {
        var heads: [[UInt8]: [UInt8]] = [:]
        for head in posted { heads[Array(head.device)] = Array(head.record) }
        return heads
    }

    public func fetch() throws(JournalError) {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        try pull()
    }

    /// One request: the frames, their base and head, and the device's head to post. The
    /// service appends them only if its head is still the base; otherwise it answers with
    /// the head that won. Acknowledged once the service answered, after its commit.
    public func append(_ batch: FrameBatch, posting deviceHead: (device: [UInt8], record: [UInt8])?) throws(JournalError)
        -> (outcome: AppendOutcome, heads: [[UInt8]: [UInt8]])
    {
        // A request holds at most a page of frames and half the request bound (base64 takes
        // a third more): a whole journal's first push goes in pieces, each after the last,
        // the device's head with the last. Pieces sent before a failure stay sent.
        let pieces = batch.pieces(maximumFrames: Wire.maximumPageFrames, maximumBytes: Wire.maximumRequestBytes / 2)
        for piece in pieces.dropLast() {
            let (outcome, heads) = try appendPiece(piece, posting: nil)
            guard case .appended = outcome else { return (outcome, heads) }
        }
        return try appendPiece(pieces[pieces.count - 1], posting: deviceHead)
    }

    /// One request of an append; with `change`, a household's change of members that goes
    /// with the frames (``MembershipChange``, its `append` filled in here).
    func appendPiece(
        _ batch: FrameBatch, posting deviceHead: (device: [UInt8], record: [UInt8])?, changing change: MembershipChange? = nil
    ) throws(JournalError) -> (outcome: AppendOutcome, heads: [[UInt8]: [UInt8]]) {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        guard batch.base == head else { return (.conflict(current: head), [:]) }
        guard !batch.isEmpty else { return (.appended(head), try deviceHeads()) }
        let request = AppendRequest(
            base: WireHead(sequence: batch.base.sequence, hash: Data(batch.base.hash)),
            head: WireHead(sequence: batch.head.sequence, hash: Data(batch.head.hash)),
            frames: batch.encodedFrames.map { Data($0) },
            post: deviceHead.map { PostedHead(device: Data($0.device), record: Data($0.record)) })
        // Its own append, heard back on the live socket (often before this answer), is not a
        // change to read; a conflict or a failure gives the held head back (and a conflict reads).
        live.hold(batch.head.sequence)
        let answer: AppendAnswer?
        do throws(JournalError) {
            if var change {
                change.append = request
                answer = try connection.callHousehold(
                    .POST, Route.members(journalID), body: change, answer: AppendAnswer.self, conflict: .lastOwner, missing: .notMember)
            } else {
                answer = try connection.call(.POST, Route.append(journalID), body: request, answer: AppendAnswer.self)
            }
        } catch {
            live.hold(head.sequence)
            // No answer: the outcome is unknown (the frames may be there).
            if case .unreachable(let failure) = error.code, failure != .journalGone, !Self.isRefusal(failure) {
                isUnusable = true
            }
            throw error
        }
        guard let answer else {
            live.hold(head.sequence)
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
        if let told = answer.epoch { epoch = Array(told) }
        let answered = JournalHead(sequence: answer.head.sequence, hash: Array(answer.head.hash))
        guard answer.appended else {
            live.hold(head.sequence)
            mustPull = true  // the next wait reads what won, whatever the poll interval
            return (.conflict(current: answered), [:])
        }
        guard answered == batch.head else {
            isUnusable = true
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
        frames.accept(batch)
        return (.appended(batch.head), Self.heads(answer.heads))
    }

    /// Whether the service answered with a refusal (it wrote nothing) rather than not at all.
    private static func isRefusal(_ failure: RemoteFailure) -> Bool {
        switch failure {
        case .rejected, .notAuthenticated, .permissionDenied, .overQuota, .household: true
        default: false
        }
    }
}

/// A sync service as the shared store of a person's devices (SPEC §12).
public final class ServiceRemote: RemoteLocation {
    let connection: ServiceConnection
    public var description: String { connection.name }
    /// Whether the journals opened here start the service's live socket at their first wait
    /// (``LiveChanges``): a shell's do; a one-shot's, which read once and end, need not (a
    /// catch-up is then a cursor read, as without the socket).
    public var listensForChanges = true

    /// The service at `url` (``ServiceAddress``); this device's key for it is kept in
    /// `stateDirectory`, and the service knows the device as `deviceName`.
    public init(url: String, stateDirectory: String?, deviceName: String) throws(JournalError) {
        connection = ServiceConnection(
            address: try ServiceAddress(url: url), stateDirectory: stateDirectory, deviceName: deviceName)
    }

    public func journalIDs() throws(JournalError) -> [[UInt8]] {
        (try connection.call(.GET, Route.journals, answer: JournalList.self)?.journals ?? []).map { Array($0) }
    }

    public func serverEpoch() throws(JournalError) -> [UInt8]? {
        try connection.call(.GET, Route.journals, answer: JournalList.self)?.epoch.map { Array($0) }
    }

    public func open(journalID: [UInt8]) throws(JournalError) -> (any SharedFrameStore)? {
        listening(try ServiceFrameStore.open(connection: connection, journalID: journalID))
    }

    public func open(journalID: [UInt8], known: FrameBatch) throws(JournalError) -> (any SharedFrameStore)? {
        listening(try ServiceFrameStore.open(connection: connection, journalID: journalID, known: known))
    }

    private func listening(_ store: ServiceFrameStore?) -> ServiceFrameStore? {
        store?.listens = listensForChanges
        return store
    }

    public func create(header: JournalHeader) throws(JournalError) -> any SharedFrameStore {
        try ServiceFrameStore.create(connection: connection, header: header)
    }

    /// A one-time code enrolling another device in this device's account, as the address
    /// the other device clones from (`https://HOST:PORT/?enrol=CODE`), and how long it lasts.
    public func enrolmentAddress() throws(JournalError) -> (address: String, seconds: Int) {
        guard let code = try connection.call(.POST, Route.enrolments, answer: EnrolmentCode.self) else {
            throw JournalError(.unreachable(.unexpectedAnswer), path: description)
        }
        return (connection.address.enrolling(code: code.code), code.expiresInSeconds)
    }

    public func useDeviceKey(_ access: DeviceKeyAccess?) throws(JournalError) {
        try connection.useDeviceKey(access)
    }

    /// Uses this device's key for the service named `name` (hex digits; made at the first
    /// call when there is none), beside the first one: a household record's own.
    public func useKey(named name: String) { connection.useKey(named: name) }

    /// Asks the service for the sign-in's challenge now, not waiting for it: the connection
    /// is made while the caller derives its keys (``ServiceConnection/askChallengeAhead()``).
    public func askChallengeAhead() { connection.askChallengeAhead() }

    /// Removes this device's key for the service from this device: it signs in no more.
    public func forgetDeviceKey() { connection.forgetDeviceKey() }

    /// Whether this device holds a key for the service already (else its first call makes one).
    public var hasDeviceKey: Bool { connection.hasDeviceKey }

    /// The account's devices.
    public func devices() throws(JournalError) -> [DeviceList.Device] {
        try connection.call(.GET, Route.devices, answer: DeviceList.self)?.devices ?? []
    }

    /// Removes device `id` from the account: its key no longer signs in.
    public func removeDevice(_ id: Int64) throws(JournalError) {
        let (status, body) = try connection.send(.DELETE, Route.device(id), body: Empty?.none)
        if status == 404 {
            throw JournalError(.unreachable(.rejected(status: 404, message: "no device \(id) in this account")), path: description)
        }
        try connection.check(status, body)
    }
}
