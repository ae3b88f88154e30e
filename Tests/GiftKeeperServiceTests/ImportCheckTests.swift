import Foundation
import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import OrderedCollections
import Testing

/// `import` in two steps: ``CheckedImportDocument/checking(_:)`` needs no journal and no key,
/// so `giftkeeper import` rejects a malformed document before signing in; only the ids
/// already in the journal are checked after.
@Suite struct ImportCheckTests {
    private static let valid =
        #"{"createdAt":"2026-12-01T09:00:01.000Z","id":"p1","notes":"","occasion":"","price":"25.00","recipient":"Mum","status":"idea","title":"Scarf","updatedAt":"2026-12-01T09:00:01.000Z"}"#

    private static func document(_ presents: String) -> [UInt8] {
        Array(#"{"account":{"name":"Alice"},"format":"giftkeeper.export.v1","presents":[\#(presents)]}"#.utf8)
    }

    private static func present(_ from: String, _ to: String) -> String {
        valid.replacingOccurrences(of: from, with: to)
    }

    @Test(arguments: [
        ("broken JSON", Array(#"{"format": "giftkeeper.export.v1", "presents": [}"#.utf8), "line 1"),
        ("the format tag", Array(#"{"format": "giftkeeper.export.v9", "presents": []}"#.utf8), "'format'"),
        ("an unknown field", document(present(#""title""#, #""titel""#)), "presents[0].titel"),
        ("a bad price", document(present(#""25.00""#, #""-5""#)), "presents[0].price"),
        ("a bad status", document(present(#""idea""#, #""lost""#)), "presents[0].status"),
        ("a duplicate id", document(valid + "," + valid), "presents[1].id"),
        // Domain rules that need no state are checked here too.
        ("an empty title", document(present(#""Scarf""#, #""  ""#)), "presents[0].title"),
        (
            "a title over 1,000 characters",
            document(present(#""Scarf""#, "\"" + String(repeating: "x", count: 1001) + "\"")), "presents[0].title"
        ),
        ("an empty recipient", document(present(#""Mum""#, #""""#)), "presents[0].recipient"),
    ])
    func aMalformedDocumentIsRejectedWithoutAJournal(label: String, bytes: [UInt8], location: String) {
        let error = serviceError { _ = try CheckedImportDocument.checking(bytes) }
        let rejection = error?.importRejection
        #expect(rejection?.location.contains(location) == true, "\(label): \(String(describing: error))")
        #expect(error?.exitCode == 2)
    }

    @Test func aWellFormedDocumentIsCheckedThenImportedAgainstTheJournal() throws {
        let checked = try CheckedImportDocument.checking(Self.document(Self.valid + "," + Self.present(#""p1""#, #""p2""#)))
        #expect(checked.presentCount == 2)

        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        let summary = try service.importDocument(checked)
        #expect(summary.presentsImported == 2 && summary.batches == 1)
        #expect(service.state.presents.keys.map(\.description) == ["p1", "p2"])

        // The same document again: its ids are in the journal now, which only the import
        // step can know. Rejected whole, nothing appended.
        let before = try sandbox.journalBytes()
        let error = serviceError { _ = try service.importDocument(checked) }
        #expect(error?.importRejection?.location == "presents[0].id", "\(String(describing: error))")
        #expect(try sandbox.journalBytes() == before)
        try service.close()
    }

    @Test func importingACheckedDocumentNeedsASignedInSession() throws {
        let checked = try CheckedImportDocument.checking(Self.document(Self.valid))
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try service.signOut()
        let before = try sandbox.journalBytes()
        #expect(serviceError { _ = try service.importDocument(checked) }?.isNotSignedIn == true)
        #expect(try sandbox.journalBytes() == before)
    }
}

/// The parts export v2 added are checked like presents: named places, nothing appended.
@Suite struct ImportVersion2CheckTests {
    @Test(arguments: [
        (#"{"format":"giftkeeper.export.v2","presents":[],"occasions":[{"name":"X","date":"2026-02-30","yearly":false}]}"#, "occasions[0].date"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"occasions":[{"name":"X","date":null,"yearly":"yes"}]}"#, "occasions[0].yearly"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"occasions":[{"date":null}]}"#, "occasions[0].name"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"occasions":[{"name":"X","colour":"red"}]}"#, "occasions[0].colour"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"budgets":[{"amount":"-5","recipient":"Mum","occasion":null}]}"#, "budgets[0].amount"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"budgets":[{"amount":"5","recipient":7}]}"#, "budgets[0].recipient"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"account":{"currency":"euro"}}"#, "account.currency"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"budgets":[{"amount":"5","recipient":"Mum","year":"20x7"}]}"#, "budgets[0].year"),
        (#"{"format":"giftkeeper.export.v2","presents":[],"budgets":[{"amount":"5","recipient":"Mum","year":"0"}]}"#, "budgets[0].year"),
        (
            #"{"format":"giftkeeper.export.v1","presents":[{"id":"p1","recipient":"A","title":"T","status":"idea","createdAt":"2026-12-01T09:00:01.000Z","updatedAt":"2026-12-01T09:00:01.000Z","url":"u"}]}"#,
            "presents[0].url"
        ),
    ])
    func aBadPartIsNamed(document: String, location: String) {
        var rejection: ServiceError?
        do {
            _ = try CheckedImportDocument.checking(Array(document.utf8))
        } catch {
            rejection = error
        }
        guard case .importRejected(let place, _)? = rejection?.code else {
            Issue.record("accepted: \(document)")
            return
        }
        #expect(place == location, "\(document)")
    }
}

/// A budget for one year (SPEC §10.1) goes out with its year and comes back with it.
@Suite struct BudgetYearExportTests {
    @Test func aBudgetForOneYearComesBackFromItsExport() throws {
        let sandbox = try Sandbox()
        let source = try sandbox.setUp()
        try source.perform(.setBudget(Budget(scope: BudgetScope(recipient: "Mum", year: 2027), amount: try Money.parsePrice("30"))))
        try source.perform(.setBudget(Budget(scope: BudgetScope(occasion: "Christmas"), amount: try Money.parsePrice("100"))))
        let exported = try exportBytes(source)
        #expect(String(decoding: exported, as: UTF8.self).contains(#""year" : "2027""#))
        try source.close()
        let target = try sandbox.setUp(path: sandbox.root + "/other.journal")
        _ = try target.importDocument(exported)
        #expect(target.state.budgets.values.map(\.scope) == [BudgetScope(recipient: "Mum", year: 2027), BudgetScope(occasion: "Christmas")])
        try target.close()
    }
}
