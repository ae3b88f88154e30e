import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import OrderedCollections
import Testing

@Suite struct ConfidentialityTests {
    /// Nothing a user typed is in the journal or in the remembered head, in clear.
    @Test func noSecretIsInTheJournalOrTheStateDirectory() throws {
        let secrets = [
            "Zephyrine Quillfeather",  // name
            "Bartholomew Oakenshield",  // recipient
            "Iridescent Narwhal Lamp",  // title
            "hidden behind the marmalade jars",  // notes
            "Midwinter Solstice Gala",  // occasion
            "Obsidian Harpsichord",  // an edited title
            "Gwendolyn Fairweather",  // an edited recipient
            "pumpernickel-Wombat-7731",  // the password
            "quokka-Tangerine-0042",  // the new password
            "wrong-Marzipan-9999",  // a wrong password
            "Ünïcödé Crème Brûlée",  // non-ASCII text
            "1234.56",  // a price
        ]
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(name: secrets[0], password: secrets[7])
        try service.perform(
            .addPresent(
                recipient: secrets[1], title: secrets[2], notes: secrets[3],
                price: try Money.parsePrice(secrets[11]), occasion: secrets[4]))
        try service.perform(.addPresent(recipient: secrets[10], title: secrets[10], notes: secrets[10], occasion: secrets[10]))
        let id = try #require(PresentID(number: 1))
        try service.perform(.editPresent(id: id, changes: [.title(secrets[5]), .recipient(secrets[6])]))
        try service.perform(.markPresent(id: id, status: .bought))
        try service.signOut()
        _ = serviceError { try service.login(password: password(secrets[9])) }
        try service.login(password: password(secrets[7]))
        try service.changePassword(old: password(secrets[7]), new: password(secrets[8]))
        _ = try exportBytes(service)
        try service.close()

        let journal = try sandbox.journalBytes()
        let heads = try sandbox.headFiles()
        #expect(heads.count == 1)
        let headBytes = try heads.flatMap { try readBytes($0) }
        for secret in secrets {
            let forms = Set([secret, secret.precomposedStringWithCanonicalMapping, secret.decomposedStringWithCanonicalMapping])
            for form in forms {
                #expect(!occurs(Array(form.utf8), in: journal), "'\(form)' is in the journal in clear")
                #expect(!occurs(Array(form.utf8), in: headBytes), "'\(form)' is in the remembered head")
            }
        }
        // Nor are the event type names (the kind byte is all that is in clear).
        for name in ["presentAdded", "accountCreated", "loginFailed", "passwordChanged"] {
            #expect(!occurs(Array(name.utf8), in: journal))
        }
        // The file is private.
        var info = stat()
        #expect(stat(sandbox.journalPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(sandbox.journalDirectory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(stat(heads[0], &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    /// SPEC §12: the server (and anyone with the file) sees frame sizes; from format version
    /// 2 they tell how many 64-byte blocks an event fills, not how long its text is.
    @Test func frameSizesDoNotTellHowLongATitleIs() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        let before = try RawJournal(sandbox.journalBytes()).frames.count
        for title in ["A", "Kite", "A much longer title of forty characters!"] {
            try service.perform(.addPresent(recipient: "Mum", title: title))
        }
        try service.close()
        let raw = try RawJournal(sandbox.journalBytes())
        #expect(raw.version == 2)
        let sizes = raw.frames.dropFirst(before).prefix(3).map(\.payload.count)
        #expect(sizes.count == 3)
        #expect(Set(sizes).count == 1, "\(sizes)")
        try expectPadded(sandbox.journalPath)
    }

    /// A version-1 journal (made before padding) stays version 1: its new frames are sealed
    /// as before, unpadded, and it opens as it did.
    @Test func aVersionOneJournalKeepsItsVersionWhenAppendedTo() throws {
        let (sandbox, golden) = try Golden.sandbox(with: GoldenJournalTests.journalName)
        let service = try sandbox.signIn(password: "golden2")
        try service.perform(.addPresent(recipient: "Dad", title: "Socks"))
        try service.close()
        let raw = try RawJournal(sandbox.journalBytes())
        #expect(raw.version == 1)
        let appended = raw.frames.dropFirst(try RawJournal(golden).frames.count).filter { $0.kind == 1 }
        #expect(appended.count >= 2)  // sign-in, the add (and the sign-out)
        #expect(appended.allSatisfy { ($0.payload.count - 40) % 64 != 0 }, "\(appended.map(\.payload.count))")
        let reopened = try sandbox.signIn(password: "golden2")
        #expect(reopened.state.presents.values.last?.title == "Socks")
        try reopened.close()
    }
}
