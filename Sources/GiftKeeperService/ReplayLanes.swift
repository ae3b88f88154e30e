import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import Synchronization

/// The replay's two lanes: frames are authenticated and decoded in batches on a second
/// thread while the events of the batch before are handed, in order, to the replay's body
/// (the fold) on the caller's thread; once the fold is done with its batch, the caller's
/// thread opens frames of the next one too, the two lanes taking a few frames at a time
/// until none is left (opening costs more than folding, so a second lane opening alone
/// kept the fold waiting for it).
///
/// Each frame's AEAD is independent of the others (its additional data binds its own
/// sequence number, kind and the stored hash before it), so opening batch k+1 while batch
/// k is folded changes nothing but the time: the body sees the same frames and events in
/// the same order, and the replay stops at the first frame that does not authenticate or
/// decode with the same error, after the body has seen every frame before it (a frame
/// opened ahead of a stop is dropped unseen). Keys are only read through
/// ``SecureBytes/withUnsafeBytes(_:)`` by libsodium on the second thread; nothing copies
/// them. The plaintext buffer is the ``EventOpener``'s, zeroed when it goes.
final class ReplayLanes {
    /// What a frame of a batch became.
    enum Outcome {
        /// A key wrap (no event), or an event that opened and decoded.
        case frame(Event?)
        /// Why the replay stops at this frame.
        case problem(ServiceError)
    }

    /// Frames copied out of the store's buffer (their views are valid only in its callback).
    final class Batch {
        struct Entry {
            let sequence: UInt64
            let kind: FrameKind
            let offset: Int
            /// Where the previous hash (32 bytes) and then the payload are in ``bytes``.
            let start: Int
            let payloadCount: Int
            /// The epoch to open it under; nil for a key wrap or a frame that stops the replay.
            let epoch: Int?
        }

        var bytes: [UInt8] = []
        var entries: [Entry] = []
        /// One per entry once the batch is opened.
        var outcomes: [Outcome] = []
        /// The next entry no lane has taken to open.
        let nextToOpen = Atomic<Int>(0)
        /// Set on the frame that stops the replay before any key is used (a key wrap out of
        /// place, an event before any key wrap): nothing is added after it.
        var stop: ServiceError?

        var isFull: Bool { entries.count >= ReplayLanes.batchFrames || bytes.count >= ReplayLanes.batchBytes }

        func add(_ frame: FrameView, epoch: Int?) {
            entries.append(
                Entry(
                    sequence: frame.sequence, kind: frame.kind, offset: frame.offset, start: bytes.count,
                    payloadCount: frame.payload.count, epoch: epoch))
            bytes.append(contentsOf: frame.previousHash)
            bytes.append(contentsOf: frame.payload)
        }

        func clear() {
            bytes.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
            outcomes.removeAll(keepingCapacity: true)
            nextToOpen.store(0, ordering: .relaxed)
            stop = nil
        }

        /// Calls `body` with each frame's view, valid only inside it.
        func forEachFrame(_ body: (Int, FrameView) throws -> Void) rethrows {
            try bytes.withUnsafeBytes { bytes in
                for index in entries.indices { try body(index, frame(index, in: bytes)) }
            }
        }

        /// Entry `index`'s frame, a view of `bytes` (the batch's).
        func frame(_ index: Int, in bytes: UnsafeRawBufferPointer) -> FrameView {
            let entry = entries[index]
            let payloadStart = entry.start + Blake2b.digestLength
            return FrameView(
                sequence: entry.sequence, kind: entry.kind,
                payload: UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + entry.payloadCount]),
                previousHash: UnsafeRawBufferPointer(rebasing: bytes[entry.start..<payloadStart]),
                offset: entry.offset)
        }
    }

    /// Thrown out of the store's callback after a frame that stops the replay was added.
    struct EndOfInput: Error {}

    /// A batch is opened once it holds this many frames or bytes.
    static let batchFrames = 512
    static let batchBytes = 256 << 10
    /// How many frames a lane takes to open at a time.
    static let framesTaken = 16

    /// Which lane opens a frame: each has its own opener (its buffers).
    enum Lane: Int {
        case caller = 0
        case second = 1
    }

    private let open: (FrameView, Int, Lane) throws(EventSealing.OpenFailure) -> Event
    private let body: (FrameView, Event?) throws -> Void
    /// Frames still arriving.
    private var filling = Batch()
    /// Frames opened on the second lane, not yet handed to the body.
    private var opened = Batch()
    /// Set once the body threw or reached a problem: nothing more is opened or handed out.
    private var isOver = false

    /// - Parameters:
    ///   - open: authenticates and decodes a frame under the epoch given by its index; runs
    ///     on the lane it is given, one frame at a time on each, both lanes at once.
    ///   - body: the replay's body, on the caller's thread, in order.
    init(
        open: @escaping (FrameView, Int, Lane) throws(EventSealing.OpenFailure) -> Event,
        body: @escaping (FrameView, Event?) throws -> Void
    ) {
        self.open = open
        self.body = body
    }

    /// Takes a frame from the store; when the batch is full, opens it while the batch before
    /// goes to the body. `stop`: the frame stops the replay (nothing after it is added).
    /// - Throws: what the body threw, or the problem of a frame it reached (then the replay is over).
    func add(_ frame: FrameView, epoch: Int?, stop: ServiceError? = nil) throws {
        filling.add(frame, epoch: epoch)
        if let stop {
            filling.stop = stop
            return
        }
        if filling.isFull { try advance() }
    }

    /// Hands every frame taken to the body: what is opened, then the rest once opened.
    /// Does nothing once the replay is over.
    func finish() throws {
        guard !isOver else { return }
        if !filling.entries.isEmpty { try advance() }
        try deliver(opened)
    }

    /// Opens the filling batch on the second lane while the opened one goes to the body, and
    /// on this lane too once the body is done with it.
    private func advance() throws {
        var delivered: Result<Void, any Error> = .success(())
        let toOpen = filling
        let toDeliver = opened
        toOpen.outcomes = Array(repeating: .frame(nil), count: toOpen.entries.count)
        toOpen.bytes.withUnsafeBytes { bytes in
            toOpen.outcomes.withUnsafeMutableBufferPointer { outcomes in
                TwoLanes.run(
                    here: {
                        delivered = Result { try deliver(toDeliver) }
                        if case .success = delivered { openShare(of: toOpen, bytes, into: outcomes, on: .caller) }
                    },
                    there: { openShare(of: toOpen, bytes, into: outcomes, on: .second) })
            }
        }
        try delivered.get()
        toDeliver.clear()
        opened = toOpen
        filling = toDeliver
    }

    /// Opens frames of `batch` a few at a time, taking those no lane has taken, until none
    /// is left: each frame's outcome at its index. Every frame is opened, those after one
    /// that stops the replay too (the body never sees them: it stops at the first problem).
    private func openShare(
        of batch: Batch, _ bytes: UnsafeRawBufferPointer, into outcomes: UnsafeMutableBufferPointer<Outcome>,
        on lane: Lane
    ) {
        let count = batch.entries.count
        while true {
            let first = batch.nextToOpen.wrappingAdd(Self.framesTaken, ordering: .relaxed).oldValue
            guard first < count else { return }
            for index in first..<min(first + Self.framesTaken, count) {
                let frame = batch.frame(index, in: bytes)
                if let epoch = batch.entries[index].epoch {
                    do throws(EventSealing.OpenFailure) {
                        outcomes[index] = .frame(try open(frame, epoch, lane))
                    } catch {
                        outcomes[index] = .problem(SealedJournal.problem(error, sequence: frame.sequence))
                    }
                } else if let stop = batch.stop, index == count - 1 {
                    outcomes[index] = .problem(stop)
                }
            }
        }
    }

    /// Hands `batch`'s frames to the body in order, up to a problem, which it throws.
    private func deliver(_ batch: Batch) throws {
        do {
            try batch.forEachFrame { index, frame in
                // Moved out of the batch, not copied: a copy would retain each of the event's
                // strings (made on the other lane's core) once more, and release them after.
                var outcome = Outcome.frame(nil)
                swap(&outcome, &batch.outcomes[index])
                switch outcome {
                case .frame(let event): try body(frame, event)
                case .problem(let problem): throw problem
                }
            }
        } catch {
            isOver = true
            throw error
        }
    }
}
