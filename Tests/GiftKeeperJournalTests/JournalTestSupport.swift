import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import Glibc
import Testing

/// The parent of every journal test suite.
///
/// Its tests run in parallel: no test in a process that holds journal locks starts a program
/// (`make test` runs the suites that do, `JournalProcessTests` and `PostgresStoreTests`
/// among them, in a test process of their own), so no child can hold a lock of theirs.
@Suite enum JournalTestSuite {}

/// A fresh directory under /tmp, removed with everything in it on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/giftkeeper-journal-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else { throw POSIXError(.init(rawValue: errno)!) }
        path = made
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The whole content of a file.
func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Writes `bytes` to a new file at `path` (replacing any), mode `mode`.
///
/// Unlinks first rather than truncating: ext4 flushes a file truncated and rewritten
/// (auto_da_alloc) on close, which made thousands of copies slow.
func writeBytes(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
    _ = unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
    defer { close(fd) }
    guard fchmod(fd, mode) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    var done = 0
    while done < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
        guard count > 0 else { throw POSIXError(.init(rawValue: errno)!) }
        done += count
    }
}

/// Overwrites one byte of a file in place.
func patchByte(_ path: String, at offset: Int, to value: UInt8) throws {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
    defer { close(fd) }
    var byte = value
    guard pwrite(fd, &byte, 1, off_t(offset)) == 1 else { throw POSIXError(.init(rawValue: errno)!) }
}

/// Appends `bytes` to a file with a plain `O_APPEND` write, taking no lock: another
/// program writing behind a journal's back.
func appendBytes(_ bytes: [UInt8], to path: String) throws {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
    defer { close(fd) }
    let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
    guard count == bytes.count else { throw POSIXError(.init(rawValue: errno)!) }
}

/// The permission bits of `path`.
func permissions(_ path: String) -> mode_t {
    var info = stat()
    #expect(lstat(path, &info) == 0)
    return info.st_mode & 0o7777
}

/// The payload journal-append-probe writes for frame `sequence` (keep in step with its main.swift).
func probePayload(for sequence: UInt64) -> [UInt8] {
    var bytes = (0..<8).map { UInt8(truncatingIfNeeded: sequence >> (8 * UInt64($0))) }
    bytes += (0..<Int(sequence % 61)).map { UInt8(truncatingIfNeeded: sequence &* 131 &+ UInt64($0)) }
    return bytes
}

/// Distinct payloads of the given sizes.
func payloads(sizes: [Int], salt: UInt8 = 0) -> [[UInt8]] {
    sizes.enumerated().map { index, size in
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &* 31) ^ salt }
    }
}

/// The sizes of the small journal the fault tests mutate: empty, tiny, odd, medium.
let smallJournalSizes = [0, 1, 17, 100, 300]

/// Creates a journal at `path` holding one frame per payload (one frame per append).
@discardableResult
func makeJournal(at path: String, payloads: [[UInt8]], kinds: [FrameKind]? = nil) throws -> [UInt8] {
    let journal = try Journal.create(at: path)
    for (index, payload) in payloads.enumerated() {
        try journal.append { batch in
            try batch.add(kind: kinds?[index] ?? .dataSealed, payload: payload)
        }
    }
    return try readBytes(path)
}

/// The byte ranges of the frames of a well-formed journal file.
func frameRanges(_ bytes: [UInt8]) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var offset = 60
    while offset + 4 <= bytes.count {
        let length =
            Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
            | Int(bytes[offset + 3]) << 24
        let end = offset + 53 + length
        guard end <= bytes.count else { break }
        ranges.append(offset..<end)
        offset = end
    }
    return ranges
}

/// Every frame of a journal: (sequence, kind, payload).
func replayAll(_ journal: Journal) throws -> [(sequence: UInt64, kind: FrameKind, payload: [UInt8])] {
    var frames: [(sequence: UInt64, kind: FrameKind, payload: [UInt8])] = []
    try journal.replay { frame in
        frames.append((frame.sequence, frame.kind, Array(frame.payload)))
    }
    return frames
}

/// The error `body` throws, as a JournalError (nil when it throws none or another type).
func journalError<T>(_ body: () throws -> T) -> JournalError? {
    do {
        _ = try body()
        return nil
    } catch let error as JournalError {
        return error
    } catch {
        return nil
    }
}

/// Fixes the header hash after a test patched header bytes 0..<28.
func rehashHeader(_ bytes: inout [UInt8]) {
    let hash = Blake2b.hash(Array(bytes[0..<28]))
    bytes.replaceSubrange(28..<60, with: hash)
}

/// The path of journal-append-probe, built next to the test bundle.
func probePath() throws -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { throw POSIXError(.init(rawValue: errno)!) }
    let executable = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let directory = (executable as NSString).deletingLastPathComponent
    let probe = directory + "/journal-append-probe"
    guard access(probe, X_OK) == 0 else {
        throw POSIXError(.ENOENT)
    }
    return probe
}

/// The names in a directory.
func directoryEntries(_ path: String) throws -> [String] {
    guard let directory = opendir(path) else { throw POSIXError(.init(rawValue: errno)!) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name != ".", name != ".." { names.append(name) }
    }
    return names
}
