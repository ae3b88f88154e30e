import GiftKeeperJournal
import Testing

@testable import GiftKeeperREPL

/// The shell with a server (SPEC §12), in process over the memory store and a memory server.
@Suite struct SyncTranscriptTests {
    static let setUp = ["setup Alice --kdf interactive", "correct horse", "correct horse"]

    @Test("Without a server, 'sync' says how to set one; nothing else changes")
    func syncWithoutServer() throws {
        let transcript = try Transcript()
        let outcome = try transcript.run(Self.setUp + ["sync"])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(
            outcome.errors
                == "giftkeeper: error: No server is set for this journal. Give one with --remote https://HOST (or $GIFTKEEPER_REMOTE).\n",
            "\(outcome)")
    }

    @Test("Shared at setup, changes sent as they are made; offline said once, the changes sent when the server is back")
    func changesGoToTheServer() throws {
        let transcript = try Transcript()
        let server = MemoryRemote()
        transcript.remote = server
        let first = try transcript.run(Self.setUp + ["add Dad 'Lego set'", "sync"])
        #expect(first.status == 0, "\(first)")
        let shared = first.errorLines.filter { $0.hasPrefix("Shared through memory://server#") }
        #expect(shared.count == 1, "\(first)")
        #expect(first.outputLines.last?.hasPrefix("Up to date with memory://server#") == true, "\(first)")
        let id = try #require(server.journals.keys.first)
        #expect(server.frames(of: id).count == Int(transcript.frameCount))

        server.isReachable = false
        let offline = try transcript.run(["login", "correct horse", "add Mum Scarf", "add Gran Kite"])
        #expect(offline.status == 0, "\(offline)")
        let said = offline.errorLines.filter { $0.hasPrefix("Offline (memory://server") }
        #expect(said.count == 1, "\(offline)")
        #expect(offline.output.contains("Saved p3"), "\(offline)")

        server.isReachable = true
        let back = try transcript.run(["login", "correct horse", "sync", "sync --restore-server"])
        #expect(back.status == 0, "\(back)")
        #expect(server.frames(of: id).count == Int(transcript.frameCount))
    }
}
