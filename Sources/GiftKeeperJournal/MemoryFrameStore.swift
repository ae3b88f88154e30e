import GiftKeeperCrypto
import Glibc
import Synchronization

/// A journal held in memory: the in-memory twin of the file store, for tests.
///
/// One shared chain behind a mutex, so several handles (``handle()``, one per simulated
/// process or device) can append to it at once: each append is checked against the head
/// it was built after, and exactly one of several racing appends wins. Every read runs
/// the frames through the same chain verification as a file. Nothing is durable.
public final class MemoryFrameStore: LocalFrameStore, SharedFrameStore, @unchecked Sendable {
    // @unchecked: the shared chain is behind `shared`'s mutex; the handle's own fields are
    // used from one task at a time, as for every FrameStore.

    /// The chain every handle of one memory journal shares.
    final class Chain: Sendable {
        struct State {
            var frames: VerifiedFrames
            /// The handles whose sessions are live.
            var sessions: Set<ObjectIdentifier> = []
        }
        let header: JournalHeader
        let state: Mutex<State>
        /// The devices' posted heads (``SharedFrameStore``); shared with the chain's copy on
        /// a ``MemoryRemote/forked()`` server.
        let board: DeviceHeadBoard

        init(header: JournalHeader, path: String, board: DeviceHeadBoard = DeviceHeadBoard()) {
            self.header = header
            self.state = Mutex(State(frames: VerifiedFrames(header: header, path: path)))
            self.board = board
        }
    }

    /// Device heads by device id.
    final class DeviceHeadBoard: Sendable {
        let heads = Mutex<[[UInt8]: [UInt8]]>([:])
    }

    public let name: String
    public var header: JournalHeader { chain.header }
    public private(set) var head: JournalHead
    public private(set) var frameIndex: FrameIndex
    public var canAppend: Bool { access == .readWrite }
    public var trimmedTail: TornTail? { nil }
    public var damage: JournalProblem? { nil }

    let chain: Chain
    let access: JournalAccess
    /// Whether the (simulated) server can be reached: a ``MemoryRemote``'s handles fail as
    /// an unreachable server's while it is cut off.
    var isReachable: () -> Bool = { true }

    /// A new, empty memory journal known by `path`, with a random journal id.
    public convenience init(path: String = "memory") throws(JournalError) {
        let journalID: [UInt8]
        do {
            journalID = try randomBytes(count: JournalFormat.journalIDSize)
        } catch {
            throw JournalError(.io(operation: "get random bytes for", errno: EIO), path: path)
        }
        let header = try VerifiedFrames.newHeader(journalID: journalID, path: path).header
        self.init(path: path, chain: Chain(header: header, path: path), access: .readWrite)
    }

    /// An empty memory journal with `header` (a server's copy of a device's journal).
    public convenience init(header: JournalHeader, path: String) {
        self.init(path: path, chain: Chain(header: header, path: path), access: .readWrite)
    }

    /// A handle on `chain`, known by its path.
    convenience init(chain: Chain) {
        self.init(path: chain.state.withLock { $0.frames.path }, chain: chain, access: .readWrite)
    }

    private init(path: String, chain: Chain, access: JournalAccess) {
        self.name = path
        self.chain = chain
        self.access = access
        (head, frameIndex) = chain.state.withLock { ($0.frames.head, $0.frames.index) }
    }

    /// Another handle on the same chain, as a second process or device would open it.
    public func handle(access: JournalAccess = .readWrite) -> MemoryFrameStore {
        MemoryFrameStore(path: name, chain: chain, access: access)
    }

    public func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome {
        guard access == .readWrite else { throw JournalError(.readOnlyAccess, path: name) }
        try requireReachable()
        let outcome: AppendOutcome = chain.state.withLock { state in
            guard batch.base == state.frames.head else { return .conflict(current: state.frames.head) }
            state.frames.accept(batch)
            return .appended(batch.head)
        }
        if case .appended = outcome {
            (head, frameIndex) = chain.state.withLock { ($0.frames.head, $0.frames.index) }
        }
        return outcome
    }

    public func rewrite(expecting expected: JournalHead, with batch: FrameBatch, whileReplacing: () -> Void)
        throws(JournalError) -> AppendOutcome
    {
        guard access == .readWrite else { throw JournalError(.readOnlyAccess, path: name) }
        let outcome: AppendOutcome = try chain.state.withLock { state throws(JournalError) in
            guard state.frames.head == expected else { return .conflict(current: state.frames.head) }
            var replaced = VerifiedFrames(header: header, path: name)
            try replaced.takeIn(state.frames.frames.prefix(Int(batch.base.sequence)))
            replaced.accept(batch)
            state.frames = replaced
            whileReplacing()
            return .appended(batch.head)
        }
        (head, frameIndex) = chain.state.withLock { ($0.frames.head, $0.frames.index) }
        return outcome
    }

    /// Verifies the whole chain from the genesis hash on every read, as a file is on open.
    public func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws {
        let frames = chain.state.withLock { $0.frames }
        try frames.read(after: sequence, through: head.sequence, progress: progress, body)
    }

    /// The frames up to this handle's head, verified once as the chain took them in.
    public func storedFrames() -> FrameBatch {
        chain.state.withLock { $0.frames }.storedFrames(through: head.sequence)
    }

    /// One process: a memory journal is never replaced under a handle.
    public func whileCurrent<T>(_ body: () throws -> T) throws -> T? {
        try body()
    }

    public func beginSession() -> Bool? {
        let me = ObjectIdentifier(self)
        return chain.state.withLock { state in
            state.sessions.insert(me)
            return state.sessions.count > 1
        }
    }

    public func endSession() {
        let me = ObjectIdentifier(self)
        _ = chain.state.withLock { $0.sessions.remove(me) }
    }

    /// One process holds a memory store: its checks are already one at a time.
    public func lockPasswordChecks(isCancelled: () -> Bool) -> Bool { true }

    public func unlockPasswordChecks() {}

    deinit {
        endSession()
    }

    public func postDeviceHead(device: [UInt8], record: [UInt8]) throws(JournalError) {
        try requireReachable()
        chain.board.heads.withLock { $0[device] = record }
    }

    public func deviceHeads() throws(JournalError) -> [[UInt8]: [UInt8]] {
        try requireReachable()
        return chain.board.heads.withLock { $0 }
    }

    public func fetch() throws(JournalError) {
        _ = try waitForFrames(after: .max, milliseconds: 0)
    }

    /// Fails as an unreachable server does while a ``MemoryRemote`` is cut off.
    private func requireReachable() throws(JournalError) {
        guard isReachable() else { throw JournalError(.unreachable(.noConnection), path: name) }
    }

    /// Polls the shared chain every millisecond; takes in the head others appended.
    public func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool {
        try requireReachable()
        var waited = 0
        while true {
            (head, frameIndex) = chain.state.withLock { ($0.frames.head, $0.frames.index) }
            if sequence < head.sequence { return true }
            guard waited < milliseconds else { return false }
            usleep(1_000)
            waited += 1
        }
    }
}

/// A memory journal as a ``FrameStoreLocation``: none until `create()`, then every open
/// is a new handle on the same chain (a restart of the shell, or a second process).
public final class MemoryStoreLocation: FrameStoreLocation, @unchecked Sendable {
    // @unchecked: `store` is set once by create(), from the one task a test drives.
    public let path: String
    public private(set) var store: MemoryFrameStore?

    public init(path: String = "memory") {
        self.path = path
    }

    public func open(access: JournalAccess, toleratingDamage: Bool, progress: ((Int, Int) -> Void)?)
        throws(JournalError) -> (any LocalFrameStore)?
    {
        store?.handle(access: access)
    }

    public func create() throws(JournalError) -> any LocalFrameStore {
        guard store == nil else { throw JournalError(.alreadyExists, path: path) }
        let created = try MemoryFrameStore(path: path)
        store = created
        return created.handle()
    }
}

/// A server in memory, for tests of devices: journals by id, each a ``MemoryFrameStore``
/// chain that every device's handle shares. ``isReachable`` cuts every device off (and
/// back on), as a lost connection would.
public final class MemoryRemote: RemoteLocation, @unchecked Sendable {
    // @unchecked: `journals` and `isReachable` are set from the one task a test drives.
    public let description: String
    /// The journals the server holds, by id.
    public private(set) var journals: [[UInt8]: MemoryFrameStore] = [:]
    /// While false, opening, appending and waiting all fail as an unreachable server does.
    public var isReachable = true

    public init(description: String = "memory://server") {
        self.description = description
    }

    public func journalIDs() throws(JournalError) -> [[UInt8]] {
        try requireReachable()
        return journals.keys.sorted { $0.lexicographicallyPrecedes($1) }
    }

    public func open(journalID: [UInt8]) throws(JournalError) -> (any SharedFrameStore)? {
        try requireReachable()
        guard let store = journals[journalID] else { return nil }
        return reachableHandle(on: store)
    }

    /// A handle on `store` that fails while this server is cut off.
    private func reachableHandle(on store: MemoryFrameStore) -> MemoryFrameStore {
        let handle = store.handle()
        handle.isReachable = { [weak self] in self?.isReachable ?? false }
        return handle
    }

    public func create(header: JournalHeader) throws(JournalError) -> any SharedFrameStore {
        try requireReachable()
        guard journals[header.journalID] == nil else { throw JournalError(.alreadyExists, path: description) }
        let store = MemoryFrameStore(header: header, path: name(header.journalID))
        journals[header.journalID] = store
        return reachableHandle(on: store)
    }

    /// A second face of this server with a copy of each journal as it is now, whose device
    /// heads are this one's: a server that goes on to show some devices one copy and others
    /// the other (a fork), each consistent in itself, while every device posts its head.
    public func forked() throws -> MemoryRemote {
        let copy = MemoryRemote(description: description)
        for (id, store) in journals { copy.journals[id] = try self.copy(of: store, keeping: .max) }
        return copy
    }

    /// A new chain holding the first `count` frames of `store`'s, sharing its device heads.
    private func copy(of store: MemoryFrameStore, keeping count: Int) throws -> MemoryFrameStore {
        let chain = MemoryFrameStore.Chain(header: store.header, path: name(store.header.journalID), board: store.chain.board)
        let frames = store.chain.state.withLock { Array($0.frames.frames.prefix(count)) }
        try chain.state.withLock { try $0.frames.takeIn(frames) }
        return MemoryFrameStore(chain: chain)
    }

    /// Changes the device heads posted for `journalID` as a server can: hides, replaces or
    /// alters them.
    public func alterDeviceHeads(of journalID: [UInt8], _ change: (inout [[UInt8]: [UInt8]]) -> Void) {
        journals[journalID]?.chain.board.heads.withLock { change(&$0) }
    }

    /// Every frame the server holds of `journalID`, as bytes (what a dump of it shows).
    public func frames(of journalID: [UInt8]) -> [[UInt8]] {
        journals[journalID]?.chain.state.withLock { $0.frames.frames } ?? []
    }

    /// Replaces the server's copy of `journalID` with its first `count` frames: what a
    /// server restored from an older backup holds.
    public func restoreBackup(of journalID: [UInt8], keeping count: Int) throws {
        guard let store = journals[journalID] else { return }
        journals[journalID] = try copy(of: store, keeping: count)
    }

    /// A journal's copy as messages name it: the server and `#` its id's first digits.
    private func name(_ journalID: [UInt8]) -> String {
        description + "#" + hexString(journalID.prefix(4))
    }

    private func requireReachable() throws(JournalError) {
        guard isReachable else { throw JournalError(.unreachable(.noConnection), path: description) }
    }
}
