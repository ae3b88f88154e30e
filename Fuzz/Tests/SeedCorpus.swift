import Foundation
import GiftKeeperDocuments
import GiftKeeperTestSupport
import GiftKeeperWire
import Testing

@testable import GiftKeeperCrypto
@testable import GiftKeeperDomain
@testable import GiftKeeperJournal
@testable import GiftKeeperREPL
@testable import GiftKeeperSealing
@testable import GiftKeeperService

/// How the seeds of `Fuzz/Corpus` were made: `GIFTKEEPER_RECORD_FUZZ_SEEDS=1 swift test
/// --filter SeedCorpus` writes them anew (files named `seed-*`; inputs a fuzzer found are
/// kept beside them under their own names). Otherwise this checks they are all there.
@Suite(.serialized)
struct SeedCorpus {
    static let recording = ProcessInfo.processInfo.environment["GIFTKEEPER_RECORD_FUZZ_SEEDS"] == "1"

    @Test func seedsAreCommitted() throws {
        let seeds = try Self.seeds()
        for (target, inputs) in seeds {
            let directory = CorpusTests.corpus.appendingPathComponent(target.rawValue)
            if Self.recording {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            for (name, bytes) in inputs {
                let file = directory.appendingPathComponent("seed-" + name)
                if Self.recording {
                    try Data(bytes).write(to: file)
                } else {
                    #expect(FileManager.default.fileExists(atPath: file.path), "\(target.rawValue)/seed-\(name) is committed")
                }
            }
        }
    }

    static func seeds() throws -> [FuzzTarget: [(String, [UInt8])]] {
        [
            .eventCodec: try events().enumerated().map { ("\($0.offset)-\($0.element.typeName)", EventCodec.encode($0.element)) },
            .frameReader: try journals(),
            .importReader: try documents(),
            .keyWrap: try keyWraps(),
            .rememberedHead: try rememberedHeads(),
            .tokenizer: [
                ("add", "add 'Blue scarf' --for Mum --price 25,50 --occasion \"Christmas 2026\""),
                ("quotes", "edit p3 --title 'O'\\''Brien'\\''s \"best\" mug' --notes \\#1\\ gift"),
                ("words", "O'Brien\u{0}Zoë\u{0}\u{0}a b\tc\u{0}$HOME;rm"),
                ("combining", "O'\u{301}Brien\u{0}'\u{308}\u{0}\"\u{301}"),
                ("unterminated", "add 'never closed"),
                ("backslash", "list --search a\\"),
            ].map { ($0.0, Array($0.1.utf8)) },
            .passwordReader: [
                ("line", "correct horse battery staple\nlogin\n"),
                ("crlf", "pässwörd\r\nrest"),
                ("no-newline", "secret"),
                ("editing", "ab\u{7F}cé\u{7F}\u{15}xyz\u{1A}\u{4}\n"),
                ("cancel", "abc\u{3}def\n"),
                ("long", String(repeating: "a", count: 1025) + "\n"),
                ("exact", String(repeating: "b", count: 1024) + "\nnext"),
                ("empty-line", "\n"),
            ].map { ($0.0, Array($0.1.utf8)) },
            .csvReader: try spreadsheets(),
            .icsWriter: calendars(),
            .wireMessages: try wireMessages(),
            .householdFrames: try householdFrames(),
            .binaryFramePage: try binaryFramePages(),
        ]
    }

    static let at = Timestamp(millisecondsSinceEpoch: 1_790_000_000_000)

    /// One event of every type, as the domain decides them.
    static func events() throws -> [Event] {
        var state = GiftList()
        var events: [Event] = []
        func run(_ command: Command) throws {
            for event in try GiftList.decide(command, at: at, state: state) {
                state.apply(event)
                events.append(event)
            }
        }
        try run(.createAccount(name: "Zoë"))
        try run(.signIn)
        try run(.change(.setCurrency(code: "EUR")))
        try run(.change(.addOccasion(Occasion(name: "Christmas", date: CalendarDate(year: 2026, month: 12, day: 24), isYearly: true))))
        try run(
            .change(
                .addPresent(
                    recipient: "Mum", title: "Blue scarf", notes: "wool, not acrylic", price: try Money.parsePrice("25.50"),
                    occasion: "Christmas", url: "https://example.com/scarf", store: "Market")))
        let id = try #require(PresentID(number: 1))
        try run(.change(.editPresent(id: id, changes: [.title("Blue wool scarf"), .price(nil), .notes("")])))
        try run(.change(.markPresent(id: id, status: .bought)))
        try run(.change(.setBudget(Budget(scope: BudgetScope(recipient: "Mum", occasion: "Christmas"), amount: try Money.parsePrice("40")))))
        try run(.change(.clearBudget(BudgetScope(recipient: "Mum", occasion: "Christmas"))))
        try run(.change(.removePresent(id: id)))
        try run(.change(.restorePresent(id: id)))
        try run(
            .change(
                .importPresent(
                    Present(
                        id: try #require(PresentID(number: 7)), recipient: "Łukasz", title: "Chess set 🎁",
                        price: try Money.parsePrice("1000000000"), status: .given, givenAt: at, createdAt: at, updatedAt: at))))
        try run(.change(.addOccasion(Occasion(name: "Birthday"))))
        try run(.change(.removeOccasion(name: "BIRTHDAY")))
        try run(.recordExport(presentCount: 2))
        try run(.changePassword)
        try run(.recordFailedSignIn)
        try run(.signOut)
        return events
    }

    static func journals() throws -> [(String, [UInt8])] {
        let v1 = try readBytes(repositoryRoot + "/journal/golden/v1-basic.journal")
        let v2 = try readBytes(repositoryRoot + "/journal/golden/v2-planning.journal")
        var flipped = v2
        flipped[v2.count / 2] ^= 0x10
        let directory = try TemporaryDirectory(prefix: "giftkeeper-seed")
        let path = directory.file("small.journal")
        let journal = try Journal.create(at: path)
        _ = try journal.append { batch in
            try batch.add(kind: .dataSealed, payload: Array("first".utf8))
            try batch.add(kind: .publicSealed, payload: [])
        }
        let small = try readBytes(path)
        return [
            ("v1-basic", v1), ("v2-planning", v2), ("torn", Array(v2.dropLast(7))), ("bit-flip", flipped),
            ("small", small), ("header-only", Array(small.prefix(JournalFormat.headerSize))),
        ]
    }

    static func documents() throws -> [(String, [UInt8])] {
        var state = GiftList()
        for event in try events() where event.type != .occasionRemoved { state.apply(event) }
        let v2 = try ExportDocument.encode(state)
        let v1 = """
            {"format": "giftkeeper.export.v1", "presents": [{"id": "p2", "recipient": "Dad", "title": "Socks",
             "notes": "", "price": "9.99", "occasion": "", "status": "idea",
             "createdAt": "2026-11-24T10:00:00.000Z", "updatedAt": "2026-11-24T10:00:00.000Z"}]}
            """
        return [
            ("v2", v2), ("v1", Array(v1.utf8)), ("no-format", Array(#"{"presents": []}"#.utf8)),
            ("not-json", Array("{\"format\": \"giftkeeper.export.v2\", ".utf8)),
        ]
    }

    static func spreadsheets() throws -> [(String, [UInt8])] {
        var state = GiftList()
        for event in try events() { state.apply(event) }
        let presents = state.presents.map(\.value)
        var guarded = try #require(presents.first)
        guarded.notes = "\t=1+1\n'=2"
        guarded.title = "'@home"
        let listed = StructuredOutput.csv(
            header: StructuredOutput.presentColumns,
            rows: presents.map { StructuredOutput.presentRow($0, givers: nil, isRemoved: false) }
                + [
                    StructuredOutput.presentRow(guarded, givers: ["Alice", "Bob"], isRemoved: false),
                    StructuredOutput.presentRow(guarded, givers: nil, isRemoved: true),
                ])
        return [
            ("list-csv", listed),
            (
                "semicolons",
                Array("\u{FEFF}Recipient;\"Title, long\";Price;Status\r\nMum;Scarf;12,50;bought\r\n\r\nDad;\"Socks;\"\"red\"\"\";;\r\n".utf8)
            ),
            ("tabs", Array("for\tgift\tcost\tnote\tshop\nZoë\tBook 📚\t9.99\tline one\tMarket\n".utf8)),
            (
                "rejections",
                Array(
                    "recipient,title,price,status,removed\nMum,,1,idea,\nDad,Tie,ten,idea,\nAl,Pen,1,lost,\nBo,Cup,1,idea,false,extra\nCy,Mug,,,true\n"
                        .utf8)
            ),
            ("unterminated", Array("recipient,title\nMum,\"never closed\nDad,Tie\n".utf8)),
            ("no-title", Array("recipient,notes\nMum,x\n".utf8)),
            ("tab-note", Array("recipient,title,notes\nMum,Scarf,\"\t=1\"\nDad,Tie,\"'\t\"\n".utf8)),
            ("not-text", [0x72, 0x2C, 0x74, 0x0A, 0xFF, 0xFE]),
        ]
    }

    /// Occasions as `CalendarWriterCheck.entries` reads them.
    static func calendars() -> [(String, [UInt8])] {
        func entry(_ year: Int, _ month: Int, _ day: Int, yearly: Bool = false, _ name: String, _ description: String = "") -> [UInt8] {
            let name = Array(name.utf8)
            let description = Array(description.utf8)
            let monthByte: UInt8 = UInt8(month - 1) | (yearly ? 0x80 : 0)
            let head: [UInt8] = [UInt8((year - 1) >> 8), UInt8((year - 1) & 0xFF), monthByte, UInt8(day - 1)]
            let lengths: [UInt8] = [UInt8(name.count), UInt8(description.count)]
            return head + lengths + name + description
        }
        let calendars: [(String, [UInt8])] = [
            ("plain", entry(2026, 12, 24, yearly: true, "Christmas", "Left to buy: 2 presents, 40.00 EUR; to wrap: 1")),
            ("escapes", entry(2027, 3, 1, "Mum's birthday; party, at home\\ \nnew line\r\tbell\u{7}", "a\r\nb\\,c;")),
            (
                "long-unicode",
                entry(2026, 6, 1, String(repeating: "ü", count: 60) + "🎁", "שלום \u{202E}txt.exe\u{202C} \u{9B}31m \u{7F}")
                    + entry(2026, 6, 2, yearly: true, "Zoë", String(repeating: "🎄", count: 40))
            ),
            ("combining", entry(2028, 1, 1, "e" + String(repeating: "\u{301}", count: 80), "x")),
            ("last-days", entry(2024, 2, 29, yearly: true, "Leap day") + entry(9999, 12, 31, "The end") + [1, 2, 3]),
        ]
        return calendars
    }

    /// A household's frames read before any key (a creator, a member who joined and left),
    /// each behind the selector byte of its reader in ``HouseholdFramesCheck``, a member wrap
    /// made at the check's binding, and an invitation code as shown.
    static func householdFrames() throws -> [(String, [UInt8])] {
        func secret(_ text: String) throws -> SecureBytes {
            let secret = try SecureBytes(capacity: text.utf8.count, count: 0)
            for byte in text.utf8 { secret.append(byte) }
            return secret
        }
        let header = try VerifiedFrames.newHeader(journalID: HouseholdFramesCheck.journalID, path: "seed", household: true).header
        let store = MemoryFrameStore(header: header, path: "seed")
        let initial = GiftList.fold([Event(at: Timestamp(millisecondsSinceEpoch: 0), .accountCreated(name: "Seed"))])
        let owner = try HouseholdMember.create(
            in: store.handle(), password: try secret("owner"), recoveryCode: try secret("owner-recovery"), parameters: .testMinimum,
            initial: initial)
        let joiner = try HouseholdMember.join(
            store.handle(), password: try secret("joiner"), recoveryCode: try secret("joiner-recovery"), parameters: .testMinimum,
            initial: initial)
        try owner.admit(joiner.keys)
        try joiner.completeEpoch()
        try joiner.leave()
        var seeds: [(String, [UInt8])] = []
        let handle = store.handle()
        _ = try handle.waitForFrames(after: 0, milliseconds: 0)
        try handle.read(after: 0, progress: nil) { frame in
            let selectors: [FrameKind: UInt8] = [.epoch: 0, .completion: 1, .leave: 2]
            guard let selector = selectors[frame.kind] else { return }
            seeds.append(("\(frame.kind)-\(frame.sequence)", [selector] + Array(frame.payload)))
        }
        let wrap = try MemberWrapPayload.make(
            try MemberSecrets.generate(), password: try secret("pw"), recoveryCode: try secret("code"), parameters: .testMinimum,
            binding: FrameBinding.pendingMemberWrap(journalID: HouseholdFramesCheck.journalID))
        seeds.append(("member-wrap", [3] + wrap))
        seeds.append(("invitation-code", [4] + Array(try InvitationCode.make(owner: owner.keys).text.utf8)))
        seeds.append(("invitation-code-lower", [4] + Array(try InvitationCode.make(owner: owner.keys).text.lowercased().utf8)))
        return seeds
    }

    /// Requests and answers of the sync service, a page of frames of `WireMessagesCheck`'s journal among them.
    static func wireMessages() throws -> [(String, [UInt8])] {
        let header = WireMessagesCheck.header
        let (frames, tampered, head) = try seedFrames()
        let genesis = WireHead(sequence: 0, hash: Data(header.genesisHash))
        let post = PostedHead(device: Data(repeating: 4, count: 16), record: Data(repeating: 5, count: 90))
        let proof = DeviceProof(
            publicKey: Data(repeating: 6, count: 32), nonce: Data(repeating: 7, count: 32), signature: Data(repeating: 8, count: 64))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func json(_ value: some Encodable) throws -> [UInt8] { Array(try encoder.encode(value)) }
        return [
            ("frame-page", try json(FramePage(after: 0, frames: frames, head: head))),
            ("frame-page-tampered", try json(FramePage(after: 0, frames: tampered, head: head))),
            ("journal-info", try json(JournalInfo(header: Data(header.encoded), head: head))),
            ("append-request", try json(AppendRequest(base: genesis, head: head, frames: frames, post: post))),
            ("append-answer", try json(AppendAnswer(appended: false, head: head, heads: [post]))),
            ("sign-up", try json(DeviceSignUp(proof: proof, deviceName: "Zoë's laptop", code: "ABCD-1234"))),
            (
                "devices",
                try json(
                    DeviceList(devices: [
                        .init(id: 1, name: "phone", publicKey: Data(repeating: 9, count: 32), enrolledAt: 1_790_000_000, isCurrent: true)
                    ]))
            ),
            ("session", try json(SessionToken(token: "t0k3n", expiresInSeconds: 3600, device: 2))),
            (
                "new-journal",
                try json(NewJournal(header: Data(header.encoded), journalID: Data(header.journalID), genesisHash: Data(header.genesisHash)))
            ),
            ("not-json", Array(#"{"after": 0, "frames": ["AAAA"#.utf8)),
        ]
    }

    /// Three frames of `WireMessagesCheck`'s journal, the same with the second altered, and their head.
    static func seedFrames() throws -> (frames: [Data], tampered: [Data], head: WireHead) {
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: WireMessagesCheck.header.genesisHash), path: "seed")
        try batch.add(kind: .keyWrap, payload: Array(repeating: 1, count: 40))
        try batch.add(kind: .dataSealed, payload: Array("sealed".utf8))
        try batch.add(kind: .publicSealed, payload: [])
        let frames = batch.encodedFrames.map { Data($0) }
        var tampered = frames
        tampered[1][tampered[1].count - 40] ^= 1
        return (frames, tampered, WireHead(sequence: 3, hash: Data(batch.head.hash)))
    }

    /// Pages of frames in binary: `WireMessagesCheck`'s journal's, one with a frame altered,
    /// one cut short, an empty one with an epoch, and a JSON page.
    static func binaryFramePages() throws -> [(String, [UInt8])] {
        let (frames, tampered, head) = try seedFrames()
        let page = BinaryFramePage.encode(FramePage(after: 0, frames: frames, head: head))
        return [
            ("page", page),
            ("tampered", BinaryFramePage.encode(FramePage(after: 0, frames: tampered, head: head))),
            ("cut", Array(page.dropLast(7))),
            ("empty-epoch", BinaryFramePage.encode(FramePage(after: 3, frames: [], head: head, epoch: Data(repeating: 2, count: 16)))),
            ("json", Array(try JSONEncoder().encode(FramePage(after: 0, frames: frames, head: head)))),
        ]
    }

    static func keyWraps() throws -> [(String, [UInt8])] {
        let dataKey = try SecureBytes.random(count: 32)
        let passwordKey = try SecureBytes.random(count: 32)
        let previous = try SecureBytes.random(count: 32)
        let binding = FrameBinding(
            formatVersion: 1, journalID: [UInt8](repeating: 1, count: 16), sequence: 1, kind: .keyWrap,
            previousHash: [UInt8](repeating: 2, count: 32))
        let salt = [UInt8](repeating: 3, count: PasswordKDF.saltLength)
        let first = try KeyWrapPayload.make(
            parameters: .testMinimum, salt: salt, passwordKey: passwordKey, dataKey: dataKey,
            boxKeyPair: try BoxKeyPair.generate(), previousDataKey: nil, binding: binding)
        let second = try KeyWrapPayload.make(
            parameters: .interactive, salt: salt, passwordKey: passwordKey, dataKey: dataKey,
            boxKeyPair: try BoxKeyPair.generate(), previousDataKey: previous, binding: binding)
        var unsafe = first
        unsafe[2] = 0
        return [("first", first), ("after-password-change", second), ("unsafe-cost", unsafe), ("short", Array(first.prefix(70)))]
    }

    static func rememberedHeads() throws -> [(String, [UInt8])] {
        let head = AuthenticatedHead(
            journalID: [UInt8](repeating: 9, count: 16), device: nil,
            head: JournalHead(sequence: 42, hash: [UInt8](repeating: 5, count: 32)), epochWrapSequence: 1)
        let good = try head.encoded(dataKey: #require(RememberedHeadCheck.dataKey))
        var badMAC = good
        badMAC[badMAC.count - 1] ^= 1
        let posted = AuthenticatedHead(
            journalID: head.journalID, device: [UInt8](repeating: 3, count: 16), head: head.head, epochWrapSequence: 1,
            seen: [AuthenticatedHead.SeenHead(device: [UInt8](repeating: 4, count: 16), head: head.head)])
        let postedBytes = try posted.encoded(dataKey: #require(RememberedHeadCheck.dataKey))
        return [("good", good), ("bad-mac", badMAC), ("short", Array(good.prefix(40))), ("posted-with-seen", postedBytes)]
    }
}
