import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import OrderedCollections
import Testing

@Suite struct ImportTests {
    /// A journal with presents in every status, one without a price, one removed (so the
    /// ids have a gap) and unicode text.
    private func sourceExport() throws -> [UInt8] {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(name: "Alice")
        try addScenarioPresents(service)
        try service.perform(.addPresent(recipient: "Zoë", title: "Crème brûlée set", notes: "  two\nlines  ", price: try Money.parsePrice("0.99")))
        try service.perform(.addPresent(recipient: "Ada", title: "Notebook", price: try Money.parsePrice("7")))
        try service.perform(.markPresent(id: #require(PresentID(number: 1)), status: .bought))
        try service.perform(.markPresent(id: #require(PresentID(number: 2)), status: .wrapped))
        try service.perform(.markPresent(id: #require(PresentID(number: 5)), status: .given))
        try service.perform(.removePresent(id: #require(PresentID(number: 3))))
        let bytes = try exportBytes(service)
        try service.close()
        return bytes
    }

    /// Export → import into a new journal → export gives the same presents: same ids,
    /// recipients, titles, notes, prices, occasions, statuses and created/updated times.
    @Test func exportImportExportKeepsThePresents() throws {
        let exported = try sourceExport()
        let target = try Sandbox(clock: CounterClock(startMilliseconds: CounterClock.start + 86_400_000))
        let service = try target.setUp(name: "Bob")
        let summary = try service.importDocument(exported)
        #expect(summary.presentsImported == 4 && summary.batches == 1)
        let reexported = try exportBytes(service)

        let before = try exportedPresents(exported)
        let after = try exportedPresents(reexported)
        #expect(after == before)
        #expect(before.map { $0["id"] } == ["p1", "p2", "p4", "p5"])
        #expect(before.map { $0["status"] } == ["bought", "wrapped", "idea", "given"])

        // New presents never reuse an imported id; the replay agrees.
        try service.perform(.addPresent(recipient: "Mum", title: "Tea"))
        #expect(service.state.presents.keys.last?.description == "p6")
        let live = service.state
        try service.close()
        let replayed = try target.signIn()
        #expect(replayed.state.presents == live.presents)
        #expect(replayed.state.nextPresentNumber == 7)
        try replayed.close()
    }

    private static let valid =
        #"{"createdAt":"2026-12-01T09:00:01.000Z","id":"p1","notes":"","occasion":"","price":"25.00","recipient":"Mum","status":"idea","title":"Scarf","updatedAt":"2026-12-01T09:00:01.000Z"}"#

    private static func document(_ presents: String, format: String = "giftkeeper.export.v1") -> String {
        #"{"account":{"name":"Alice"},"format":"\#(format)","presents":[\#(presents)]}"#
    }

    private static func present(_ replacing: [String: String]) -> String {
        var text = valid
        for (old, new) in replacing { text = text.replacingOccurrences(of: old, with: new) }
        return text
    }

    /// A malformed document is rejected whole, naming the field; nothing is appended.
    @Test(arguments: [
        ("malformed JSON", #"{"format": "giftkeeper.export.v1", "presents": ["#, "line 1, column 49"),
        ("not an object", "[]", "the document"),
        ("wrong format tag", document(valid, format: "giftkeeper.export.v9"), "format"),
        ("missing format", #"{"presents":[]}"#, "format"),
        ("presents not a list", #"{"format":"giftkeeper.export.v1","presents":{}}"#, "presents"),
        ("duplicate ids", document(valid + "," + present([#""Scarf""#: #""Hat""#])), "presents[1].id"),
        ("bad id", document(present([#""p1""#: #""q1""#])), "presents[0].id"),
        ("negative price", document(present([#""25.00""#: #""-25.00""#])), "presents[0].price"),
        ("price as a number", document(present([#""25.00""#: "25.00"])), "presents[0].price"),
        ("price with three decimals", document(present([#""25.00""#: #""25.001""#])), "presents[0].price"),
        ("unknown status", document(present([#""idea""#: #""lost""#])), "presents[0].status"),
        ("missing title", document(present([#","title":"Scarf""#: ""])), "presents[0].title"),
        ("empty title", document(present([#""Scarf""#: #""""#])), "presents[0].title"),
        ("whitespace title", document(present([#""Scarf""#: #""   ""#])), "presents[0].title"),
        ("title over 1,000 characters", document(present([#""Scarf""#: "\"" + String(repeating: "t", count: 1001) + "\""])), "presents[0].title"),
        ("empty recipient", document(present([#""Mum""#: #""""#])), "presents[0].recipient"),
        ("unknown field", document(present([#""notes""#: #""colour""#])), "presents[0].colour"),
        ("bad time", document(present([#""createdAt":"2026-12-01T09:00:01.000Z""#: #""createdAt":"yesterday""#])), "presents[0].createdAt"),
        ("a good present, then a bad one", document(present([#""p1""#: #""p7""#]) + "," + present([#""idea""#: #""lost""#])), "presents[1].status"),
        ("a good present, then an empty title", document(present([#""p1""#: #""p7""#]) + "," + present([#""Scarf""#: #""""#])), "presents[1].title"),
        ("an id already in the journal", document(valid), "presents[0].id"),
        ("the id of a removed present", document(present([#""p1""#: #""p2""#])), "presents[0].id"),
    ])
    func aBadDocumentIsRejectedWholeNamingTheField(label: String, document: String, location: String) throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try addScenarioPresents(service)
        try service.perform(.removePresent(id: #require(PresentID(number: 2))))
        let before = try sandbox.journalBytes()
        let state = service.state
        let error = serviceError { _ = try service.importDocument(Array(document.utf8)) }
        let rejection = try #require(error?.importRejection, "\(label): \(String(describing: error))")
        #expect(rejection.location.contains(location), "\(label): rejected at \(rejection.location): \(rejection.reason)")
        #expect(error?.exitCode == 2)
        #expect(try sandbox.journalBytes() == before, "\(label): the journal changed")
        #expect(service.state == state)
        try service.close()
    }

    @Test func anEmptyPresentListImportsNothing() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        let before = try sandbox.journalBytes()
        let summary = try service.importDocument(Array(Self.document("").utf8))
        #expect(summary.presentsImported == 0 && summary.batches == 0)
        #expect(try sandbox.journalBytes() == before)
        try service.close()
    }

    @Test func importNeedsASignedInSession() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try service.signOut()
        let before = try sandbox.journalBytes()
        #expect(serviceError { _ = try service.importDocument(Array(Self.document(Self.valid).utf8)) }?.isNotSignedIn == true)
        #expect(try sandbox.journalBytes() == before)
    }
}
