import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal

/// The replay's two lanes: frames are authenticated and decoded in batches on a second
/// thread while the events of the batch before are handed, in order, to the replay's body
/// (the fold) on the caller's thread.
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
        var outcomes: [Outcome] = []
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
            stop = nil
        }

        /// Calls `body` with each frame's view, valid only inside it.
        func forEachFrame(_ body: (Int, FrameView) throws -> Void) rethrows {
            try bytes.withUnsafeBytes { bytes in
                for (index, entry) in entries.enumerated() {
                    let payloadStart = entry.start + Blake2b.digestLength
                    try body(
                        index,
                        FrameView(
                            sequence: entry.sequence, kind: entry.kind,
                            payload: UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + entry.payloadCount]),
                            previousHash: UnsafeRawBufferPointer(rebasing: bytes[entry.start..<payloadStart]),
                            offset: entry.offset))
                }
            }
        }
    }

    /// Thrown out of the store's callback after a frame that stops the replay was added.
    struct EndOfInput: Error {}

    /// A batch is opened once it holds this many frames or bytes.
    static let batchFrames = 512
    static let batchBytes = 256 << 10

    private let open: (FrameView, Int) throws(EventSealing.OpenFailure) -> Event
    private let body: (FrameView, Event?) throws -> Void
    /// Frames still arriving.
    private var filling = Batch()
    /// Frames opened on the second lane, not yet handed to the body.
    private var opened = Batch()
    /// Set once the body threw or reached a problem: nothing more is opened or handed out.
    private var isOver = false

    /// - Parameters:
    ///   - open: authenticates and decodes a frame under the epoch given by its index; runs
    ///     on the second lane, one frame at a time.
    ///   - body: the replay's body, on the caller's thread, in order.
    init(
        open: @escaping (FrameView, Int) throws(EventSealing.OpenFailure) -> Event,
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

    /// Opens the filling batch on the second lane while the opened one goes to the body.
    private func advance() throws {
        var delivered: Result<Void, any Error> = .success(())
        let toOpen = filling
        let toDeliver = opened
        TwoLanes.run(
            here: { delivered = Result { try deliver(toDeliver) } },
            there: { openAll(toOpen) })
        try delivered.get()
        toDeliver.clear()
        opened = toOpen
        filling = toDeliver
    }

    /// Opens every frame of `batch` up to the first that stops the replay.
    private func openAll(_ batch: Batch) {
        batch.outcomes.reserveCapacity(batch.entries.count)
        batch.forEachFrame { index, frame in
            if case .problem = batch.outcomes.last { return }
            if let epoch = batch.entries[index].epoch {
                do throws(EventSealing.OpenFailure) {
                    batch.outcomes.append(.frame(try open(frame, epoch)))
                } catch {
                    batch.outcomes.append(.problem(SealedJournal.problem(error, sequence: frame.sequence)))
                }
            } else if let stop = batch.stop, index == batch.entries.count - 1 {
                batch.outcomes.append(.problem(stop))
            } else {
                batch.outcomes.append(.frame(nil))
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
