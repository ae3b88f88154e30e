import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import OrderedCollections
import Testing

/// The three presents of the integration scenario.
func addScenarioPresents(_ service: GiftKeeperService) throws {
    try service.perform(
        .addPresent(
            recipient: "Mum", title: "Blue scarf", notes: "wool, not acrylic",
            price: try Money.parsePrice("25.00"), occasion: "Christmas"))
    try service.perform(
        .addPresent(
            recipient: "Dad", title: "Chess clock", price: try Money.parsePrice("42.5"), occasion: "Birthday"))
    try service.perform(.addPresent(recipient: "Sam", title: "Kite"))
}

@Suite struct ScenarioTests {
    /// Issue "Done means" 1: setup → 3 presents → sign out → wrong password → login →
    /// passwd → old refused, new accepted → export equals the golden file.
    @Test func wholeSessionFromSetupToExport() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(name: "Alice", password: "first secret")
        #expect(service.phase == .signedIn)
        #expect(service.accountName == "Alice")
        try addScenarioPresents(service)
        let presents = service.state.presents
        #expect(presents.keys.map(\.description) == ["p1", "p2", "p3"])

        try service.signOut()
        #expect(service.phase == .locked)
        #expect(service.state.presents.isEmpty)
        #expect(service.accountName == nil)

        sandbox.notifications.items.removeAll()
        sandbox.sleeps.removeAll()
        let wrong = serviceError { try service.login(password: password("first secre")) }
        #expect(wrong?.wrongPasswordRecorded == true)
        #expect(wrong?.exitCode == 3)
        // The first three failures cost nothing (SPEC §1).
        #expect(sandbox.notifications.items == [.failedAttempt(recorded: true, nextDelaySeconds: 0)])
        #expect(service.phase == .locked)
        #expect(service.nextLoginDelay == 0)

        sandbox.notifications.items.removeAll()
        try service.login(password: password("first secret"))
        #expect(sandbox.waits.totals.isEmpty)
        guard case .signedIn(let name, let failed, let previousVisit)? = sandbox.notifications.items.last else {
            Issue.record("no signedIn notification: \(sandbox.notifications.items)")
            return
        }
        #expect(name == "Alice")
        #expect(failed == 1)
        #expect(previousVisit != nil)
        #expect(service.state.presents == presents)

        try service.changePassword(old: password("first secret"), new: password("second secret"))
        #expect(service.state.lastPasswordChangeAt != nil)
        try service.signOut()

        let old = serviceError { try service.login(password: password("first secret")) }
        #expect(old?.wrongPasswordRecorded == true)
        try service.login(password: password("second secret"))
        #expect(service.state.presents == presents)
        #expect(service.accountName == "Alice")

        let exported = try exportBytes(service)
        if Golden.isRecording {
            try Golden.record(exported, as: "export-v2.json")
        }
        let golden = try Golden.bytes("export-v2.json")
        #expect(exported == golden, "export differs from Golden/export-v2.json:\n\(String(decoding: exported, as: UTF8.self))")
        try service.close()
        #expect(service.phase == .locked || service.phase == .noAccount)
    }

    /// Issue "Done means" 6: export is deterministic (its stateExported event does not
    /// change the presents, so the bytes are identical), and each export is recorded.
    @Test func exportTwiceGivesIdenticalBytes() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try addScenarioPresents(service)
        try service.perform(.markPresent(id: #require(PresentID(number: 2)), status: .wrapped))
        let framesBefore = try RawJournal(sandbox.journalBytes()).frames.count
        let first = try exportBytes(service)
        let second = try exportBytes(service)
        #expect(first == second)
        #expect(try RawJournal(sandbox.journalBytes()).frames.count == framesBefore + 2)
        #expect(service.state.lastExportAt != nil)

        let text = String(decoding: first, as: UTF8.self)
        #expect(text.contains("\"format\" : \"giftkeeper.export.v2\""))
        #expect(text.contains("\"price\" : \"42.50\""))
        #expect(text.contains("\"price\" : null"))
        #expect(text.hasSuffix("}\n"))
        let history = try service.historyEntries()
        #expect(history.filter { $0.event?.type == .stateExported }.count == 2)
        try service.close()
    }

    /// Names and present text are NFC-normalised (SPEC §4): "é" typed as one code point or
    /// as "e" + combining accent is the same text, live and after replay.
    @Test func textIsNFCNormalised() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(name: "Zoe\u{301}")
        #expect(service.accountName == "Zo\u{E9}")
        #expect(service.accountName?.unicodeScalars.count == 3)
        try service.perform(.addPresent(recipient: "Rene\u{301}e", title: "Cre\u{300}me bru\u{302}le\u{301}e", occasion: "Noe\u{308}l"))
        let id = try #require(PresentID(number: 1))
        try service.perform(.editPresent(id: id, changes: [.notes("cafe\u{301}")]))
        let present = try #require(service.state[id: id])
        #expect(Array(present.recipient.unicodeScalars) == Array("Ren\u{E9}e".unicodeScalars))
        #expect(Array(present.title.unicodeScalars) == Array("Cr\u{E8}me br\u{FB}l\u{E9}e".unicodeScalars))
        #expect(Array(present.occasion.unicodeScalars) == Array("No\u{EB}l".unicodeScalars))
        #expect(Array(present.notes.unicodeScalars) == Array("caf\u{E9}".unicodeScalars))
        // Editing to the same text in the other form changes nothing.
        #expect(try service.perform(.editPresent(id: id, changes: [.title("Cr\u{E8}me br\u{FB}l\u{E9}e")])).events.isEmpty)
        let live = service.state.presents
        try service.close()
        let replayed = try sandbox.signIn()
        #expect(replayed.state.presents == live)
        #expect(Array(replayed.accountName?.unicodeScalars ?? "".unicodeScalars) == Array("Zo\u{E9}".unicodeScalars))
        try replayed.close()
    }
}
