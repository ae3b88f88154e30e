import GiftKeeperDomain
import Testing

@testable import GiftKeeperREPL

/// `audit`'s one-line summaries of events (``AuditWords``), worded in the shell.
@Suite struct AuditWordsTests {
    private func pid(_ number: UInt64) throws -> PresentID { try #require(PresentID(number: number)) }
    private func cents(_ value: Int64) throws -> Money { try #require(Money(minorUnits: value)) }

    @Test func summariesOfEachKind() throws {
        #expect(
            try EventBody.presentAdded(id: pid(3), recipient: "Mum", title: "Scarf", notes: "", price: nil, occasion: "Birthday").audited
                == "added p3 \"Scarf\" for Mum")
        #expect(try EventBody.presentEdited(id: pid(1), changes: [.price(cents(3000)), .title("Red scarf")]).audited == "edited p1: price, title")
        #expect(EventBody.signedOut(clean: false).audited == "signed out (session ended without sign-out)")
        #expect([EventBody.passwordChanged, .stateExported(presentCount: 2)].map(\.audited) == ["password changed", "exported 2 presents"])
    }

    @Test func summaries() throws {
        let added = try EventBody.presentAdded(id: pid(3), recipient: "Mum", title: "Blue scarf", notes: "", price: cents(2500), occasion: "")
        #expect(added.audited == "added p3 \"Blue scarf\" for Mum (25.00)")
        #expect(try EventBody.presentStatusChanged(id: pid(3), status: .bought).audited == "marked p3 bought")
        #expect(EventBody.signedOut(clean: true).audited == "signed out")
        #expect(EventBody.loginFailed.audited == "failed sign-in")
        #expect(EventBody.stateExported(presentCount: 1).audited == "exported 1 present")
        let long = try EventBody.presentAdded(
            id: pid(1), recipient: "M\num", title: String(repeating: "x", count: 100), notes: "", price: nil, occasion: "")
        #expect(long.audited == "added p1 \"\(String(repeating: "x", count: 60))…\" for M um")
    }

    /// A summary's texts are cut at 60 characters and show control characters as spaces,
    /// whether the text is plain ASCII (taken as it is) or not.
    @Test(arguments: [
        (String(repeating: "x", count: 60), String(repeating: "x", count: 60)),
        (String(repeating: "x", count: 61), String(repeating: "x", count: 60) + "…"),
        (String(repeating: "é", count: 61), String(repeating: "é", count: 60) + "…"),
        ("a\r\nb", "a b"), ("tab\tend\u{7F}", "tab end "), ("Zoë \u{85}", "Zoë  "), ("", ""), ("~ !", "~ !"),
    ])
    func summaryTextIsCutAndCleaned(title: String, shown: String) throws {
        let added = try EventBody.presentAdded(id: pid(1), recipient: "Mum", title: title, notes: "", price: nil, occasion: "")
        #expect(added.audited == "added p1 \"\(shown)\" for Mum")
    }
}

extension EventBody {
    fileprivate var audited: String { AuditWords.summary(self) }
}
