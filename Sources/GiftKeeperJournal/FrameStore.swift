public import GiftKeeperCrypto
import Glibc

/// A journal's storage: an append-only chain of frames, whatever holds it.
///
/// Three operations make a store (SPEC §12): append frames after an expected head (a
/// conflict returns the head that won), read frames after a sequence number, and wait for
/// frames after a sequence number. The frames a store hands out have been verified
/// against the hash chain (``FrameScanner``): chain verification works the same on frames
/// from any store. Implementations: ``Journal`` (the local file, the embedded default) and
/// ``MemoryFrameStore`` (tests). One conformance suite holds them to the same behaviour.
///
/// A store value is a handle used from one task at a time.
public protocol FrameStore: AnyObject {
    /// What the user calls the journal (a file's path, a server's address without its
    /// credentials), for messages and for the rollback memory's key.
    var name: String { get }
    /// The clear header: format version, journal id, genesis hash.
    var header: JournalHeader { get }
    /// The newest head this handle has seen.
    var head: JournalHead { get }
    /// What this handle has noted about its frames' kinds (the key wraps kept).
    var frameIndex: FrameIndex { get }

    /// Appends `batch` durably if the store's head is still ``FrameBatch/base``.
    /// - Returns: ``AppendOutcome/appended(_:)`` with the new head once durable, or
    ///   ``AppendOutcome/conflict(current:)`` (nothing written) when another writer won.
    func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome

    /// Calls `body` with every verified frame after sequence number `sequence`, in order,
    /// up to this handle's head. The views are valid only inside `body`.
    func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws

    /// Waits up to `milliseconds` for frames after `sequence` to exist, taking in (and
    /// verifying) any that another writer appended; true when there are some.
    func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool
}

/// A device's own copy of a journal (the file; memory in tests): what only a copy on this
/// device has (whether it can still be appended to, the unfinished write trimmed and the
/// damage found on opening, the sessions live on it), and frames after the position it
/// last shared with a server that can be replaced: its offline changes, decided again after
/// another device's (SPEC §12).
public protocol LocalFrameStore: FrameStore {
    /// Whether an append can be tried (opened for writing, no earlier write failed).
    var canAppend: Bool { get }
    /// An unfinished last frame found when opening (trimmed when opened for writing).
    var trimmedTail: TornTail? { get }
    /// The first frame that did not verify, when opened read-only tolerating damage.
    var damage: JournalProblem? { get }

    /// Marks this handle's session live until ``endSession()`` or until the handle goes
    /// (a crash included), and tells whether another handle — another process — holds a
    /// live session on the journal now; nil when the store cannot tell.
    ///
    /// The events say how many sessions signed in and did not sign out; only this says
    /// which of them are still running, so that a crashed one is not confused with a
    /// session open in another process.
    func beginSession() -> Bool?

    /// Ends what ``beginSession()`` marked.
    func endSession()

    /// Takes the journal's password-check lock, which one process at a time holds while it
    /// waits out the delay after failed sign-ins, derives a key from a password and
    /// records a failure (SPEC §5: guesses run one by one, whatever the number of
    /// processes). Waits for another holder, looking every 50 ms, until it lets go or
    /// `isCancelled` says so (then false); a holder stopped for over a minute is not waited
    /// for. True without a lock where there can be none (a journal this user cannot write:
    /// no failure can be recorded in it either).
    func lockPasswordChecks(isCancelled: () -> Bool) -> Bool

    /// Lets go of what ``lockPasswordChecks(isCancelled:)`` took.
    func unlockPasswordChecks()

    /// Replaces the frames after `batch`'s base with `batch`, at once (a crash leaves the
    /// old frames or the new ones, whole), if the head is still `expected`; otherwise writes
    /// nothing and returns the current head. Open the store again afterwards.
    ///
    /// `whileReplacing` runs once the new frames are in place and before any other process
    /// can lock them: what this device remembers of the journal (its rollback memory) moves
    /// with them, so no other process sees the new frames with the old memory or the reverse.
    func rewrite(expecting expected: JournalHead, with batch: FrameBatch, whileReplacing: () -> Void) throws(JournalError)
        -> AppendOutcome

    /// Runs `body` holding the journal's lock, after taking in what other processes
    /// appended, while this handle's journal is still the one at its place; nil, without
    /// running it, when another process replaced it meanwhile (a sync's merge: open it
    /// again). Writers of what this device remembers of the journal write it this way, so
    /// that a reader holding the lock sees the journal and the memory of it agree.
    func whileCurrent<T>(_ body: () throws -> T) throws -> T?
}

extension FrameStore {
    /// An empty batch whose first frame follows this handle's head.
    public func makeBatch() -> FrameBatch {
        FrameBatch(after: head, path: name)
    }

    /// How many frames this handle has seen.
    public var frameCount: Int { Int(head.sequence) }
}

/// How a service finds its journal's store: opens it when it exists, creates it for
/// `setup`. The file path is the embedded default; tests use memory.
public protocol FrameStoreLocation {
    /// The path (or name) the store is known by.
    var path: String { get }

    /// Opens the store, or returns nil when there is no journal there yet.
    /// - Parameters:
    ///   - toleratingDamage: read-only only: open a journal that does not verify, holding
    ///     the frames before the damage (``FrameStore/damage``), for `audit`.
    func open(access: JournalAccess, toleratingDamage: Bool, progress: ((Int, Int) -> Void)?) throws(JournalError)
        -> (any LocalFrameStore)?

    /// Creates a new, empty journal, open for writing.
    /// - Throws: ``JournalError/Code/alreadyExists`` when one exists.
    func create() throws(JournalError) -> any LocalFrameStore
}

/// A journal file at a path: ``Journal``.
public struct FileStoreLocation: FrameStoreLocation {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func open(access: JournalAccess, toleratingDamage: Bool, progress: ((Int, Int) -> Void)?)
        throws(JournalError) -> (any LocalFrameStore)?
    {
        do {
            return try Journal.open(at: path, access: access, progress: progress, toleratingDamage: toleratingDamage)
        } catch  where error.code == .notFound {
            return nil
        }
    }

    public func create() throws(JournalError) -> any LocalFrameStore {
        try Journal.create(at: path)
    }
}

/// A server's copy of a journal, shared by a person's devices (SPEC §12): a store, and a
/// board where each device posts the head it last verified there, so that devices compare
/// what the server showed each of them (a server showing two devices two forks is caught
/// when one reads the other's head).
///
/// The board holds opaque records the devices authenticate; the store never reads them.
public protocol SharedFrameStore: FrameStore {
    /// Posts `record` as device `device`'s head (16 bytes), replacing the one it posted before.
    func postDeviceHead(device: [UInt8], record: [UInt8]) throws(JournalError)

    /// The head records the devices posted, by device id.
    func deviceHeads() throws(JournalError) -> [[UInt8]: [UInt8]]

    /// Takes in (verifying) every frame the server holds now, whatever was heard from it:
    /// frames read after the device heads include every frame those heads were posted for.
    func fetch() throws(JournalError)

    /// ``FrameStore/append(_:)``; when it lands, `head` posted as
    /// ``postDeviceHead(device:record:)`` does, and the other devices' heads read as
    /// ``deviceHeads()`` does, as they stood for frames up to the batch's base (a server may
    /// do all three in one request).
    func append(_ batch: FrameBatch, posting head: (device: [UInt8], record: [UInt8])?) throws(JournalError)
        -> (outcome: AppendOutcome, heads: [[UInt8]: [UInt8]])

    /// The server's epoch as it last told it: a value it changes when its storage was
    /// restored from a backup (so that devices take the older state as a restore, not a
    /// lie); nil from a server without one.
    var epoch: [UInt8]? { get }

    /// Every frame this handle holds, as one batch after the genesis head: what a device's
    /// copy is written from (`clone`). A handle that verified each frame as it took it in
    /// hands them over in the bytes they came as (``VerifiedFrames/storedFrames(through:)``).
    func storedFrames() throws(JournalError) -> FrameBatch
}

extension SharedFrameStore {
    /// A server without epochs.
    public var epoch: [UInt8]? { nil }

    /// The frames as ``FrameStore/read(after:progress:_:)`` gives them, encoded again.
    public func storedFrames() throws(JournalError) -> FrameBatch {
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: header.genesisHash), path: name)
        do {
            try read(after: 0, progress: nil) { frame in try batch.add(kind: frame.kind, payload: Array(frame.payload)) }
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(.io(operation: "read", errno: EIO), path: name)
        }
        return batch
    }

    /// Reads the heads, appends, then posts this device's head when the append landed.
    public func append(_ batch: FrameBatch, posting head: (device: [UInt8], record: [UInt8])?) throws(JournalError)
        -> (outcome: AppendOutcome, heads: [[UInt8]: [UInt8]])
    {
        let heads = try deviceHeads()
        let outcome = try append(batch)
        if case .appended = outcome, let head { try postDeviceHead(device: head.device, record: head.record) }
        return (outcome, heads)
    }
}

/// A server that holds copies of journals for a person's devices (SPEC §12): the shared
/// store a device's own journal is synchronised with. It holds frames only, ciphertext.
public protocol RemoteLocation: AnyObject {
    /// The server as the user named it, without any password (for messages and records).
    var description: String { get }

    /// The ids of the journals the server holds (for `clone` to pick one).
    func journalIDs() throws(JournalError) -> [[UInt8]]

    /// Opens the server's copy of journal `journalID`, taking in (verifying) every frame it
    /// has; nil when the server holds no such journal.
    func open(journalID: [UInt8]) throws(JournalError) -> (any SharedFrameStore)?

    /// Makes an empty copy of the journal whose header is `header` (the first push), open
    /// for appending.
    /// - Throws: ``JournalError/Code/alreadyExists`` when the server holds it already.
    func create(header: JournalHeader) throws(JournalError) -> any SharedFrameStore

    /// ``open(journalID:)`` for a device that holds `known`: the frames from the first up to
    /// the position it last saw the server hold, which it verified then. A server that can
    /// read after a position reads only the frames after them (a cursor: what a sync reads
    /// does not grow with the journal), and reads every frame — as ``open(journalID:)``
    /// does — when the server no longer holds them (behind, or a frame that does not chain),
    /// so that the sync's plan sees the whole of what it holds.
    func open(journalID: [UInt8], known: FrameBatch) throws(JournalError) -> (any SharedFrameStore)?

    /// The server's epoch (``SharedFrameStore/epoch``), asked without a journal: for a
    /// device whose journal the server no longer holds. Nil from a server without one.
    func serverEpoch() throws(JournalError) -> [UInt8]?

    /// What opens this device's key for the server from now on (nil: nothing, signed out),
    /// the key file brought up to date with it at once (``DeviceKeyAccess``).
    func useDeviceKey(_ access: DeviceKeyAccess?) throws(JournalError)
}

extension RemoteLocation {
    /// A server without epochs.
    public func serverEpoch() throws(JournalError) -> [UInt8]? { nil }

    /// A server that does not ask devices to prove themselves.
    public func useDeviceKey(_ access: DeviceKeyAccess?) throws(JournalError) {}

    /// A server that reads every frame in any case.
    public func open(journalID: [UInt8], known: FrameBatch) throws(JournalError) -> (any SharedFrameStore)? {
        try open(journalID: journalID)
    }
}
