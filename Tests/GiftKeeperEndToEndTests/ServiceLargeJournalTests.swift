import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// SPEC §9 and §12: a journal larger than one request of the sync service (a page of 2,000
/// frames) and than the old quota of 1,200 frames a minute is shared in its first push, in
/// pieces, and a second device clones all of it.
@Suite("A large journal through giftkeeper-server", .programSlot, .needsService)
struct ServiceLargeJournalTests {
    @Test("2,600 presents imported and shared in one sync reach a second device whole")
    func largeFirstPush() async throws {
        let url = try ServiceFixture.requireURL()
        let trust = ServiceFixture.deviceEnvironment
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let presents = (1...2_600).map { number in
            #"{"createdAt": "2026-01-01T00:00:00.000Z", "id": "p\#(number)", "notes": "", "occasion": "", "price": null, "#
                + #""recipient": "Mum", "status": "idea", "store": "", "title": "Present \#(number)", "#
                + #""updatedAt": "2026-01-01T00:00:00.000Z", "url": ""}"#
        }
        let document = laptop.home + "/presents.json"
        try writeNewFile(
            Array(#"{"format": "giftkeeper.export.v2", "presents": [\#(presents.joined(separator: ","))]}"#.utf8), to: document)
        let shared = try await laptop.run(
            ["--journal", laptop.journal, "--remote", url],
            input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nimport \(document)\nsync\nquit\n", environment: trust)
        #expect(shared.status == 0, "\(shared)")
        #expect(shared.stderr.contains("Shared through ") || shared.stdout.contains("Shared through "), "\(shared)")
        #expect(!shared.stderr.contains("Not sent yet") && !shared.stderr.contains("Offline"), "\(shared)")

        try await ServiceEndToEndTests().enrolAndClone(from: laptop, to: desktop)
        let list = try await desktop.run(
            ["list", "--all", "--json", "--journal", desktop.journal], input: "secret-pw\n", environment: trust, timeout: .seconds(60))
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.components(separatedBy: #""title" : "Present "#).count - 1 == 2_600, "\(list.stderr)")
    }
}
