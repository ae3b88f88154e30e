import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperTestSupport
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// What a device trusts of its server across syncs (SPEC §12): a restore the server
/// announces (a new epoch) is rebased onto, not reported; after a detected lie nothing is
/// sent until a sync checks out; and a server that shows one device an older head of another
/// than a third device saw is caught when their views cross. Against ``LyingServer``.
@Suite struct ServerTrustTests {
    let household = AdversarialServerTests()
    /// This test's directories (a suite instance per test), kept until it ends.
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func titles(_ service: GiftKeeperService) -> [String] {
        service.state.presents.values.map(\.title).sorted()
    }

    /// The laptop and the desktop of ``AdversarialServerTests/household(_:_:)``, level with
    /// the server (of epoch 1) and each other.
    func levelHousehold(_ server: LyingServer) throws -> (laptop: GiftKeeperService, desktop: GiftKeeperService) {
        server.epoch = Array(repeating: 1, count: 16)
        let (laptop, desktop) = try household.household(server, sandbox)
        try desktop.sync()
        try laptop.sync()
        return (laptop, desktop)
    }

    /// A new server, and ``levelHousehold(_:)`` on it.
    func levelHousehold() throws -> (LyingServer, laptop: GiftKeeperService, desktop: GiftKeeperService) {
        let server = LyingServer()
        let (laptop, desktop) = try levelHousehold(server)
        return (server, laptop, desktop)
    }

    /// A level household whose server is backed up, then the laptop adds a present and
    /// syncs; returns the devices and the backup (which lacks the present).
    func backedUpThenAdded(_ server: LyingServer) throws
        -> (laptop: GiftKeeperService, desktop: GiftKeeperService, dump: LyingServer.Backup)
    {
        let (laptop, desktop) = try levelHousehold(server)
        let dump = server.backup
        try laptop.perform(.addPresent(recipient: "Gran", title: "Drum"))
        try laptop.sync()
        return (laptop, desktop, dump)
    }

    /// A third device cloned from the server, signed in and synced.
    func tablet(_ server: LyingServer) throws -> GiftKeeperService {
        var environment = sandbox.environment(stateDirectory: sandbox.root + "/state-tablet")
        environment.remoteLocation = { _ in server }
        _ = try JournalClone.clone(
            url: server.description, to: sandbox.root + "/tablet.journal", password: password("correct horse"), environment: environment)
        let tablet = GiftKeeperService(journalPath: sandbox.root + "/tablet.journal", environment: environment)
        try tablet.open()
        try tablet.login(password: password("correct horse"))
        try tablet.sync()
        return tablet
    }

    @Test("a restore the server announces is rebased onto: both devices' changes end on the server once, and both are told")
    func announcedRestoreLosesNothing() throws {
        let (server, laptop, desktop) = try levelHousehold()
        let dump = server.backup
        for title in ["Drum", "Yo-yo"] { try laptop.perform(.addPresent(recipient: "Gran", title: title)) }
        try laptop.sync()

        // The backup is restored and the operator says so; the desktop, behind, adds.
        server.restore(dump)
        server.epoch = Array(repeating: 2, count: 16)
        try desktop.perform(.addPresent(recipient: "Eve", title: "Puzzle"))
        #expect(try desktop.sync().serverRestored)
        // The laptop saw more than the backup holds, and another frame where its own were:
        // not a lie now; its frames are decided again after the desktop's and sent.
        let atLaptop = try laptop.sync()
        #expect(atLaptop.serverRestored)
        #expect(atLaptop.sent >= 2)
        try desktop.sync()
        #expect(titles(laptop) == ["Book", "Drum", "Kite", "Lego set", "Puzzle", "Scarf", "Yo-yo"])
        #expect(titles(desktop) == titles(laptop))
        #expect(try readBytes(laptop.journalPath) == readBytes(desktop.journalPath))
        let id = try #require(laptop.sealed?.header.journalID)
        #expect(UInt64(server.journals[id]?.frames.count ?? 0) == laptop.headSequence)
        // Told once: the next sync is an ordinary one.
        #expect(try !laptop.sync().serverRestored)
    }

    @Test("after an announced restore a device sends back the other devices' frames it saw that the backup lacks")
    func announcedRestoreGetsOtherDevicesFramesBack() throws {
        let server = LyingServer()
        let (laptop, desktop, dump) = try backedUpThenAdded(server)
        try desktop.sync()  // the desktop holds the laptop's Drum

        server.restore(dump)
        server.epoch = Array(repeating: 2, count: 16)
        let sentBack = try desktop.sync()
        #expect(sentBack.serverRestored && sentBack.sent >= 1)
        // The laptop finds its own frames there again: nothing to merge, nothing renumbered.
        let atLaptop = try laptop.sync()
        #expect(atLaptop.serverRestored && atLaptop.resolutions.isEmpty && atLaptop.sent == 0)
        #expect(titles(laptop).contains("Drum") && titles(desktop) == titles(laptop))
        #expect(try readBytes(laptop.journalPath) == readBytes(desktop.journalPath))
    }

    @Test("a shell waiting at its prompt hears of a restore at its next read and sends back what the backup lacks")
    func aWaitingShellHearsOfARestore() throws {
        let server = LyingServer()
        let (laptop, desktop, dump) = try backedUpThenAdded(server)
        try desktop.sync()
        #expect(try desktop.syncIfNeeded() == nil)
        server.restore(dump)
        server.epoch = Array(repeating: 2, count: 16)
        let report = try #require(try desktop.syncIfNeeded(), "the waiting desktop did not sync with the restored server")
        #expect(report.serverRestored && report.sent >= 1)
        let id = try #require(laptop.sealed?.header.journalID)
        #expect(UInt64(server.journals[id]?.frames.count ?? 0) == desktop.headSequence)
    }

    @Test("a restore from before the journal was pushed, announced, gets the whole journal back from the device that has it")
    func announcedRestoreFromBeforeTheJournal() throws {
        let server = LyingServer()
        server.epoch = Array(repeating: 1, count: 16)
        let empty = server.backup
        let (laptop, desktop) = try levelHousehold(server)
        let id = try #require(laptop.sealed?.header.journalID)
        server.restore(empty)
        #expect(serviceError { try laptop.sync() }?.exitCode == 1, "a server that lost the journal, unannounced")
        server.epoch = Array(repeating: 2, count: 16)
        let report = try laptop.sync()
        #expect(report.serverRestored && UInt64(report.sent) == laptop.headSequence)
        #expect(UInt64(server.journals[id]?.frames.count ?? 0) == laptop.headSequence)
        try desktop.sync()
        #expect(try readBytes(laptop.journalPath) == readBytes(desktop.journalPath))
    }

    @Test("the same older state without a new epoch is still reported as a rollback (exit 1)")
    func unannouncedRestoreIsALie() throws {
        let server = LyingServer()
        let (laptop, _, dump) = try backedUpThenAdded(server)
        server.restore(dump)
        let error = try #require(serviceError { try laptop.sync() })
        #expect(error.exitCode == 1, "\(error.code)")
    }

    @Test("after a detected lie the device sends nothing, not even on its fast path, until a sync checks out")
    func nothingIsSentToALyingServer() throws {
        let (server, _, desktop) = try levelHousehold()
        let id = try #require(desktop.sealed?.header.journalID)
        let state = try #require(desktop.environment.stateDirectory)
        // The server makes up a device's head: caught by the next sync that reads the heads.
        server.replayedHeads[Array(repeating: 0xEE, count: 16)] = Array("made up on the server".utf8)
        try desktop.perform(.addPresent(recipient: "Eve", title: "Puzzle"))
        #expect(serviceError { try desktop.sync() }?.exitCode == 1)
        #expect(RemoteRecord.read(from: state, journalID: id, journalPath: desktop.journalPath)?.distrusted == true)

        let held = server.journals[id]?.frames.count
        try desktop.perform(.addPresent(recipient: "Eve", title: "Kite"))
        let again = try #require(serviceError { try desktop.sync() })
        #expect(again.exitCode == 1, "\(again.code)")
        #expect(server.journals[id]?.frames.count == held, "frames were sent to a server caught lying")

        // Honest again: a sync that checks out sends them, and trusts it again.
        server.replayedHeads = [:]
        #expect(try desktop.sync().sent > 0)
        #expect(UInt64(server.journals[id]?.frames.count ?? 0) == desktop.headSequence)
        #expect(RemoteRecord.read(from: state, journalID: id, journalPath: desktop.journalPath)?.distrusted == false)
    }

    @Test("a server showing one device an older head of another than a third device saw is caught when their views cross")
    func hiddenProgressIsCaughtWhenViewsCross() throws {
        let (server, laptop, desktop) = try levelHousehold()
        let tablet = try tablet(server)
        try laptop.sync()
        try desktop.sync()
        let id = try #require(laptop.sealed?.header.journalID)
        let laptopID = try #require(laptop.remote?.record.device)
        let older = try #require(server.heads[id]?[laptopID])

        try laptop.perform(.addPresent(recipient: "Gran", title: "Drum"))
        try laptop.sync()
        try desktop.sync()  // the desktop verifies the laptop's new head, and posts that it saw it
        // The server shows the tablet the laptop's older head: each head it shows lies on the
        // chain, but the desktop's says the laptop went further.
        server.replayedHeads[laptopID] = older
        let error = try #require(serviceError { try tablet.sync() }, "the hidden progress was not caught")
        guard case .remoteHidesProgress(_, let shown, let seen) = error.code else {
            Issue.record("\(error.code)")
            return
        }
        #expect(shown < seen && error.exitCode == 1)
    }

    @Test("a server that later shows a device an older head of another than the device verified before is caught")
    func aReplayedOlderHeadIsCaught() throws {
        let (server, laptop, desktop) = try levelHousehold()
        let id = try #require(laptop.sealed?.header.journalID)
        let laptopID = try #require(laptop.remote?.record.device)
        let older = try #require(server.heads[id]?[laptopID])
        try laptop.perform(.addPresent(recipient: "Gran", title: "Drum"))
        try laptop.sync()
        try desktop.sync()  // verified the laptop's newer head

        server.replayedHeads[laptopID] = older
        try laptop.perform(.addPresent(recipient: "Gran", title: "Kite"))
        try laptop.sync()
        let error = try #require(serviceError { try desktop.sync() }, "the replayed head was not caught")
        if case .remoteHidesProgress = error.code {} else { Issue.record("\(error.code)") }
    }

    @Test("the record of the server keeps its epoch, the distrust mark and the heads verified; an older record reads without them")
    func theRecordOfTheServerRoundTrips() throws {
        let directory = sandbox.root + "/state-record"
        let id = [UInt8](repeating: 4, count: 16)
        let journal = sandbox.root + "/record.journal"
        var record = RemoteRecord(
            url: "https://gifts.home", shared: JournalHead(sequence: 9, hash: Array(repeating: 1, count: 32)),
            device: Array(repeating: 2, count: 16))
        record.epoch = Array(repeating: 3, count: 16)
        record.distrusted = true
        record.seen = [Array(repeating: 5, count: 16): JournalHead(sequence: 7, hash: Array(repeating: 6, count: 32))]
        try record.write(to: directory, journalID: id, journalPath: journal)
        #expect(RemoteRecord.read(from: directory, journalID: id, journalPath: journal) == record)

        let path = RemoteRecord.path(in: directory, journalID: id, journalPath: journal)
        let older = "GKREMOTE1\nhttps://gifts.home\n9 \(hexString(record.shared.hash))\n\(hexString(record.device))\n"
        try writeBytes(Array(older.utf8), to: path)
        let read = try #require(RemoteRecord.read(from: directory, journalID: id, journalPath: journal))
        #expect(read.shared == record.shared && read.epoch.isEmpty && !read.distrusted && read.seen.isEmpty)
    }
}
