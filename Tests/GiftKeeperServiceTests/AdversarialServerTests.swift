import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import OrderedCollections
import Testing

@testable import GiftKeeperSealing
@testable import GiftKeeperService

/// A server that lies (SPEC §12: the server is not trusted). It keeps the frames devices
/// send, byte for byte, and serves them through ``lie``; the device's side of each
/// connection is what a real one is (``VerifiedFrames``: every frame checked against the
/// chain before it is taken in), so these tests hold the device's checks, not the server's.
final class LyingServer: RemoteLocation, @unchecked Sendable {
    // @unchecked: used from the one task a test drives.

    /// What the server does to the frames it serves.
    enum Lie: String, CaseIterable, CustomStringConvertible {
        case honest
        /// A byte of frame 4 flipped.
        case altersAFrame
        /// Frame 4 left out (the later ones move down).
        case dropsAFrame
        /// Frames 4 and 5 served the other way round.
        case reordersFrames
        /// Frame 3 served again in place of frame 4.
        case replaysAFrame
        /// Frame 4 of another journal served in place of this one's.
        case splicesAnotherJournal
        /// Only the first 4 frames: an older state than a device saw.
        case rollsBack
        /// This journal's header with another journal's frames (another journal under this id).
        case servesAnotherJournal

        var description: String { rawValue }
    }

    let description = "lying://server"
    var lie = Lie.honest
    private(set) var journals: [[UInt8]: (header: JournalHeader, frames: [[UInt8]])] = [:]
    /// The heads the devices posted, by journal and device.
    var heads: [[UInt8]: [[UInt8]: [UInt8]]] = [:]
    /// The server's epoch (``SharedFrameStore/epoch``): nil, a server without one, unless a test sets it.
    var epoch: [UInt8]?
    /// Head records served in place of the ones posted, by device (a server replaying old heads).
    var replayedHeads: [[UInt8]: [UInt8]] = [:]

    /// What the server holds, for ``restore(_:)``.
    typealias Backup = (journals: [[UInt8]: (header: JournalHeader, frames: [[UInt8]])], heads: [[UInt8]: [[UInt8]: [UInt8]]])
    var backup: Backup { (journals, heads) }

    /// Puts back what `backup` held, as restoring a dump does.
    func restore(_ backup: Backup) {
        journals = backup.journals
        heads = backup.heads
    }
    /// Another journal's frames, for the splicing lies.
    var otherJournalFrames: [[UInt8]] = []

    func journalIDs() throws(JournalError) -> [[UInt8]] { Array(journals.keys) }

    func serverEpoch() throws(JournalError) -> [UInt8]? { epoch }

    func open(journalID: [UInt8]) throws(JournalError) -> (any SharedFrameStore)? {
        guard let journal = journals[journalID] else { return nil }
        let store = Connection(server: self, header: journal.header)
        try store.fetch()
        return store
    }

    func create(header: JournalHeader) throws(JournalError) -> any SharedFrameStore {
        guard journals[header.journalID] == nil else { throw JournalError(.alreadyExists, path: description) }
        journals[header.journalID] = (header, [])
        return Connection(server: self, header: header)
    }

    /// The frames served for `journalID` now, lies included.
    func served(_ journalID: [UInt8]) -> [[UInt8]] {
        let frames = journals[journalID]?.frames ?? []
        guard frames.count >= 5 else { return frames }
        var served = frames
        switch lie {
        case .honest: break
        case .altersAFrame: served[3][30] ^= 0x01
        case .dropsAFrame: served.remove(at: 3)
        case .reordersFrames: served.swapAt(3, 4)
        case .replaysAFrame: served[3] = frames[2]
        case .splicesAnotherJournal: served[3] = otherJournalFrames[3]
        case .rollsBack: served = Array(frames.prefix(4))
        case .servesAnotherJournal: served = otherJournalFrames
        }
        return served
    }

    /// A device's connection: its verified copy of what the server served it.
    final class Connection: SharedFrameStore {
        let server: LyingServer
        var frames: VerifiedFrames
        var name: String { frames.path }
        var header: JournalHeader { frames.header }
        var head: JournalHead { frames.head }
        var frameIndex: FrameIndex { frames.index }
        var canAppend: Bool { true }
        var trimmedTail: TornTail? { nil }
        var damage: JournalProblem? { nil }

        /// The server's epoch when this connection last read.
        private(set) var epoch: [UInt8]?

        init(server: LyingServer, header: JournalHeader) {
            self.server = server
            frames = VerifiedFrames(header: header, path: server.description)
            epoch = server.epoch
        }

        func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome {
            let id = header.journalID
            let stored = server.journals[id]?.frames.count ?? 0
            guard batch.base == head, UInt64(stored) == head.sequence else { return .conflict(current: head) }
            server.journals[id]?.frames += batch.encodedFrames
            frames.accept(batch)
            return .appended(batch.head)
        }

        func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws {
            try frames.read(after: sequence, progress: progress, body)
        }

        func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool {
            try fetch()
            return sequence < head.sequence
        }

        /// Takes in what the server serves after what this connection holds; a server now
        /// behind it, at another frame there, or in another epoch is read again from the start
        /// (as ``ServiceFrameStore`` does).
        func fetch() throws(JournalError) {
            let served = server.served(header.journalID)
            let held = frames.frames
            if served.count < held.count || (!held.isEmpty && served[held.count - 1] != held.last) || server.epoch != epoch {
                frames = VerifiedFrames(header: header, path: server.description)
                epoch = server.epoch
            }
            try frames.takeIn(served.dropFirst(frames.frames.count))
        }

        func beginSession() -> Bool? { nil }
        func endSession() {}

        func postDeviceHead(device: [UInt8], record: [UInt8]) throws(JournalError) {
            server.heads[header.journalID, default: [:]][device] = record
        }

        func deviceHeads() throws(JournalError) -> [[UInt8]: [UInt8]] {
            (server.heads[header.journalID] ?? [:]).merging(server.replayedHeads) { _, replayed in replayed }
        }

    }
}

@Suite struct AdversarialServerTests {
    /// A laptop that shared a journal of several presents and a desktop that cloned it,
    /// synced; then the laptop adds more, so the server holds frames the desktop has not
    /// seen. Returns the desktop, signed in.
    func household(_ server: LyingServer, _ sandbox: Sandbox) throws -> (laptop: GiftKeeperService, desktop: GiftKeeperService) {
        func environment(_ device: String) -> ServiceEnvironment {
            var environment = sandbox.environment(stateDirectory: sandbox.root + "/state-" + device)
            environment.remoteLocation = { _ in server }
            environment.requestedRemote = server.description
            return environment
        }
        let laptop = GiftKeeperService(journalPath: sandbox.root + "/laptop.journal", environment: environment("laptop"))
        try laptop.open()
        try laptop.setup(name: "Alice", password: password("correct horse"), parameters: .testMinimum)
        for title in ["Lego set", "Scarf", "Kite"] { try laptop.perform(.addPresent(recipient: "Dad", title: title)) }
        try laptop.sync()

        var cloned = environment("desktop")
        cloned.requestedRemote = nil
        _ = try JournalClone.clone(
            url: server.description, to: sandbox.root + "/desktop.journal", password: password("correct horse"), environment: cloned)
        let desktop = GiftKeeperService(journalPath: sandbox.root + "/desktop.journal", environment: cloned)
        try desktop.open()
        try desktop.login(password: password("correct horse"))
        try desktop.sync()
        try laptop.perform(.addPresent(recipient: "Mum", title: "Book"))
        try laptop.sync()
        return (laptop, desktop)
    }

    /// Another journal's frames (its own id, key and chain), for the splicing lies.
    func anotherJournal(_ sandbox: Sandbox) throws -> [[UInt8]] {
        let other = GiftKeeperService(journalPath: sandbox.root + "/other.journal", environment: sandbox.environment())
        try other.open()
        try other.setup(name: "Mallory", password: password("correct horse"), parameters: .testMinimum)
        for title in ["A", "B", "C", "D"] { try other.perform(.addPresent(recipient: "Eve", title: title)) }
        try other.close()
        let store = try Journal.open(at: sandbox.root + "/other.journal", access: .readOnly)
        var frames = VerifiedFrames(header: store.header, path: "other")
        var encoded: [[UInt8]] = []
        try store.read(after: 0, progress: nil) { frame in
            var batch = FrameBatch(after: frames.head, path: "other")
            try batch.add(kind: frame.kind, payload: Array(frame.payload))
            frames.accept(batch)
            encoded += batch.encodedFrames
        }
        return encoded
    }

    @Test(
        "A lying server trips the device's check every time: exit 1, the position, nothing taken in, nothing sent",
        arguments: LyingServer.Lie.allCases.filter { $0 != .honest })
    func everyLieIsCaught(lie: LyingServer.Lie) throws {
        let sandbox = try Sandbox()
        let server = LyingServer()
        server.otherJournalFrames = try anotherJournal(sandbox)
        let (laptop, desktop) = try household(server, sandbox)
        let id = try #require(desktop.sealed?.header.journalID)
        try desktop.perform(.addPresent(recipient: "Gran", title: "Puzzle"))  // waits to be sent
        let before = try readBytes(sandbox.root + "/desktop.journal")
        let held = server.journals[id]?.frames.count ?? 0

        server.lie = lie
        try desktop.close()
        // A new process: it connects again and is served the lie from the start.
        let again = GiftKeeperService(journalPath: sandbox.root + "/desktop.journal", environment: desktop.environment)
        try again.open()
        try again.login(password: password("correct horse"))
        let signedIn = try readBytes(sandbox.root + "/desktop.journal")
        let error = try #require(serviceError { try again.sync() }, "\(lie) was not caught")
        #expect(error.exitCode == 1, "\(lie): \(error.code)")
        switch error.code {
        case .journal(let failure):
            guard case .corrupt(let problem) = failure.code else {
                Issue.record("\(lie): \(failure.code)")
                break
            }
            #expect(problem.sequence == (lie == .servesAnotherJournal ? 1 : 4), "\(lie): the position")
        case .remoteBehind(_, let has, _):
            #expect(lie == .rollsBack && has == 4, "\(lie): \(error.code)")
        case .remoteHidesFrames(_, let has, _):
            #expect(lie == .rollsBack && has == 4, "\(lie): \(error.code)")
        default:
            Issue.record("\(lie): \(error.code)")
        }
        // Nothing taken from the server into the journal, nothing sent to it.
        #expect(try readBytes(sandbox.root + "/desktop.journal") == signedIn)
        #expect(signedIn.starts(with: before))
        #expect(server.journals[id]?.frames.count == held)
        #expect(again.state.presents.values.map(\.title).contains("Puzzle"))
        #expect(!again.state.presents.values.map(\.title).contains("Book"))

        // Told the truth again, the device syncs and nothing was lost on either side.
        server.lie = .honest
        try again.sync()
        try laptop.sync()
        #expect(Set(laptop.state.presents.values.map(\.title)) == ["Lego set", "Scarf", "Kite", "Book", "Puzzle"])
        #expect(again.state.presents.values.map(\.title) == laptop.state.presents.values.map(\.title))
    }
}
