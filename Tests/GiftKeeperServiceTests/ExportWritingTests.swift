import Foundation
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import Glibc
import Testing

/// `export(to:)` hands the document over in chunks and records `stateExported` only after
/// the last chunk was written and `finish()` succeeded.
@Suite struct ExportWritingTests {
    /// Fails its `failAtChunk`-th write (0-based), or its finish when `failAtChunk` is nil
    /// and `failsToFinish` is set.
    private struct FailingExport: ExportWriting {
        var failAtChunk: Int?
        var failsToFinish = false
        var chunks = 0

        mutating func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError) {
            defer { chunks += 1 }
            if chunks == failAtChunk { throw ServiceError(.fileIO(operation: "write", path: "/test", errno: 28)) }
        }

        mutating func finish() throws(ServiceError) {
            if failsToFinish { throw ServiceError(.fileIO(operation: "fsync", path: "/test", errno: 5)) }
        }
    }

    @Test(arguments: [FailingExport(failAtChunk: 0), FailingExport(failAtChunk: 2), FailingExport(failsToFinish: true)])
    private func aFailedWriteOrFinishRecordsNothing(destination: FailingExport) throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        // Enough presents for three chunks of 1 MiB (notes of 8 KB each).
        for number in 0..<400 {
            try service.perform(
                .addPresent(
                    recipient: "Mum", title: "Present \(number)", notes: String(repeating: "n", count: 8_000)))
        }
        let before = try sandbox.journalBytes()
        let state = service.state
        var destination = destination
        let error = serviceError { try service.export(to: &destination) }
        #expect(error?.exitCode != nil)
        #expect(try sandbox.journalBytes() == before)
        #expect(service.state == state)
        try service.close()
    }

    /// Every export is recorded: when the journal can no longer be written (here: bytes
    /// appended behind the writer's back made an append fail), no document is handed out.
    @Test func noExportWhenTheJournalCanNoLongerRecordIt() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try service.perform(.addPresent(recipient: "Mum", title: "Hat"))
        // Bytes that cannot be another writer's frames (an unfinished one would be trimmed).
        let foreign = [UInt8](repeating: 0xA5, count: 300)
        let fd = open(sandbox.journalPath, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        _ = foreign.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        _ = close(fd)
        #expect(serviceError { try service.perform(.addPresent(recipient: "Dad", title: "Pen")) } != nil)
        var collected = CollectedExport()
        let error = serviceError { try service.export(to: &collected) }
        #expect(error?.journalErrorCode == .unusable, "\(String(describing: error))")
        #expect(collected.chunks == 0 && collected.bytes.isEmpty)
        try? service.close()
    }

    @Test func aLargeExportComesInChunksOfAtMostOneMiB() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        for number in 0..<400 {
            try service.perform(
                .addPresent(
                    recipient: "Mum", title: "Present \(number)", notes: String(repeating: "\"", count: 6_000)))
        }
        var collected = CollectedExport()
        try service.export(to: &collected)
        #expect(collected.finished)
        #expect(collected.chunks >= 4)  // 400 × 12 KB of escaped notes (\" each)
        #expect(collected.bytes == (try ExportDocument.encode(service.state)))
        #expect(service.state.lastExportAt != nil)
        try service.close()
    }
}

/// The one JSON writer also writes `audit --json` lines.
@Suite struct JSONWriterLineTests {
    @Test func aLineIsOneCompactObjectInTheGivenOrder() throws {
        let line = JSONWriter.line([
            ("seq", .number(12)), ("neg", .number(-3)), ("time", .null), ("ok", .bool(true)),
            ("text", .string("a \"quote\"\n\u{1}é")),
        ])
        #expect(line == #"{"seq":12,"neg":-3,"time":null,"ok":true,"text":"a \"quote\"\n\u0001é"}"#)
        let decoded = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(decoded?["text"] as? String == "a \"quote\"\n\u{1}é")
        #expect(decoded?["neg"] as? Int == -3)
    }
}
