import Foundation
import GiftKeeperCrypto
import Synchronization

/// Many devices at once (`giftkeeper-bench-sync devices`): `journals` journals, each of
/// its own account with `perJournal` devices (the first signs up and makes the journal,
/// the others join with enrolment codes), spread over the service processes in turn so a
/// journal's devices sit on different processes. Every device holds its WebSocket of live
/// changes open; on each change it hears it reads by cursor.
///
/// The trials: each journal appends one frame every `journals / rate` seconds, from its
/// devices in turn; each other device of the journal times from just before the append
/// was sent to the moment its cursor read returned the frame (A→B). At the end every
/// device reads once more and its frames are compared, byte for byte, with those
/// appended: nothing may be missing, doubled or out of order.
final class Fleet: Sendable {
    let service: ServiceClient
    let origins: [String]
    let journals: [[Device]]
    /// When each frame's append was sent, by journal index and sequence, and from which process.
    private let sent = Mutex<[Int: [UInt64: (at: ContinuousClock.Instant, writer: ObjectIdentifier, node: Int)]]>([:])
    private let samples = Mutex<[(milliseconds: Double, crossNode: Bool)]>([])
    private let readFailures = Atomic<Int>(0)
    private let connected = Atomic<Int>(0)
    private let changesHeard = Atomic<Int>(0)
    private let conflicts = Atomic<Int>(0)

    init(service: ServiceClient, origins: [String], journals: Int, perJournal: Int) throws {
        self.service = service
        self.origins = origins
        var made: [[Device]] = []
        for journal in 0..<journals {
            let id = try randomBytes(count: 16)
            made.append(
                try (0..<perJournal).map { index in
                    let node = (journal + index) % origins.count
                    return try Device(service: service, origin: origins[node], node: node, journalID: id)
                })
        }
        self.journals = made
    }

    var deviceCount: Int { journals.reduce(0) { $0 + $1.count } }

    /// Signs every device up or in and makes the journals, `concurrency` journals at a time.
    func enrol(concurrency: Int = 16) async throws {
        try await concurrently(Array(journals.indices), concurrency: concurrency) { index in
            let devices = self.journals[index]
            try await devices[0].enrol()
            try await devices[0].createJournal()
            for device in devices.dropFirst() {
                try await device.enrol(code: try await devices[0].enrolmentCode())
                try await device.read()
            }
        }
    }

    /// Opens every device's WebSocket, at most `concurrency` handshakes at a time; returns
    /// the tasks holding them, to cancel at the end.
    func connect(concurrency: Int = 32) async throws -> [Task<Void, Never>] {
        var tasks: [Task<Void, Never>] = []
        let all = journals.enumerated().flatMap { index, devices in devices.map { (index, $0) } }
        for start in stride(from: 0, to: all.count, by: concurrency) {
            for (journal, device) in all[start..<min(start + concurrency, all.count)] {
                tasks.append(
                    Task {
                        await device.listen(opened: { self.connected.add(1, ordering: .relaxed) }) { _ in
                            self.changesHeard.add(1, ordering: .relaxed)
                            await self.catchUp(device, journal: journal)
                        }
                    })
            }
            let target = min(start + concurrency, all.count)
            let deadline = ContinuousClock.now + .seconds(30)
            while connected.load(ordering: .relaxed) < target {
                guard ContinuousClock.now < deadline else {
                    throw BenchError("only \(connected.load(ordering: .relaxed)) of \(target) sockets opened")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        return tasks
    }

    /// Sockets opened so far (reconnections included).
    var socketsOpened: Int { connected.load(ordering: .relaxed) }

    /// A device's read after a wake-up, timing each frame it brought that a trial sent.
    private func catchUp(_ device: Device, journal: Int) async {
        do {
            guard let taken = try await device.read() else { return }
            let now = ContinuousClock.now
            let times = sent.withLock { sent in
                taken.compactMap { sent[journal]?[$0] }.filter { $0.writer != ObjectIdentifier(device) }
            }
            samples.withLock { samples in
                for time in times { samples.append(((now - time.at).milliseconds, time.node != device.node)) }
            }
        } catch {
            readFailures.add(1, ordering: .relaxed)
        }
    }

    /// The trials: `rounds` appends a journal, `rate` a second over all journals.
    func run(rounds: Int, rate: Double, frameBytes: Int) async throws -> Outcome {
        let interval = Double(journals.count) / rate
        let start = ContinuousClock.now + .milliseconds(200)
        try await concurrently(Array(journals.indices), concurrency: journals.count) { index in
            let devices = self.journals[index]
            let offset = interval * Double(index) / Double(self.journals.count)
            for round in 0..<rounds {
                try await Task.sleep(until: start + .seconds(offset + interval * Double(round)), clock: .continuous)
                let writer = devices[round % devices.count]
                let frame = Data(try randomBytes(count: frameBytes))
                while true {
                    let sequence = writer.head + 1
                    self.sent.withLock { $0[index, default: [:]][sequence] = (.now, ObjectIdentifier(writer), writer.node) }
                    if try await writer.append(frame) { break }
                    self.conflicts.add(1, ordering: .relaxed)  // it had not read the last frame yet: read, then again
                    try await writer.read()
                }
            }
        }
        try await Task.sleep(for: .seconds(2))  // the last wake-ups
        // Every device reads once more; its frames must be the journal's, byte for byte.
        var lost = 0
        for devices in journals {
            for device in devices { try await device.read() }
            let reference = devices[0].frames
            lost += devices.filter { $0.frames != reference || $0.frames.count != rounds }.count
        }
        let expected = journals.reduce(0) { $0 + $1.count - 1 } * rounds
        return Outcome(
            samples: samples.withLock { $0 }, expectedSamples: expected, devicesDiffering: lost,
            conflicts: conflicts.load(ordering: .relaxed), readFailures: readFailures.load(ordering: .relaxed),
            changesHeard: changesHeard.load(ordering: .relaxed), appends: journals.count * rounds)
    }

    struct Outcome {
        let samples: [(milliseconds: Double, crossNode: Bool)]
        /// One a frame and device other than its writer: fewer when a wake-up brought nothing
        /// (the final read took the frame in).
        let expectedSamples: Int
        let devicesDiffering: Int
        let conflicts: Int
        let readFailures: Int
        let changesHeard: Int
        let appends: Int
    }
}

/// Runs `body` for each of `items`, at most `concurrency` at once; the first error ends all.
func concurrently<Item: Sendable>(
    _ items: [Item], concurrency: Int, _ body: @escaping @Sendable (Item) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < items.count, next < concurrency {
            let item = items[next]
            group.addTask { try await body(item) }
            next += 1
        }
        while try await group.next() != nil {
            guard next < items.count else { continue }
            let item = items[next]
            group.addTask { try await body(item) }
            next += 1
        }
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }
}

/// The `fraction` quantile of `values` (nearest rank); 0 when there are none.
func quantile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
