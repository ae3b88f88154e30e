import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import Testing

/// The parent of every journal test suite.
///
/// Its tests run in parallel: no test in a process that holds journal locks starts a program
/// (`make test` runs the suites that do, `JournalProcessTests` among them, in a test
/// process of their own), so no child can hold a lock of theirs.
@Suite enum JournalTestSuite {}

/// Overwrites one byte of a file in place.
func patchByte(_ path: String, at offset: Int, to value: UInt8) throws {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw TestSupportError("cannot open \(path): errno \(errno)") }
    defer { close(fd) }
    var byte = value
    guard pwrite(fd, &byte, 1, off_t(offset)) == 1 else { throw TestSupportError("cannot write \(path): errno \(errno)") }
}

/// Appends `bytes` to a file with a plain `O_APPEND` write, taking no lock: another
/// program writing behind a journal's back.
func appendBytes(_ bytes: [UInt8], to path: String) throws {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { throw TestSupportError("cannot open \(path): errno \(errno)") }
    defer { close(fd) }
    let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard count == bytes.count else { throw TestSupportError("cannot append to \(path): errno \(errno)") }
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

/// Fixes the header hash after a test patched header bytes 0..<28.
func rehashHeader(_ bytes: inout [UInt8]) {
    let hash = Blake2b.hash(Array(bytes[0..<28]))
    bytes.replaceSubrange(28..<60, with: hash)
}

/// The path of journal-append-probe, built next to the test bundle.
func probePath() throws -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { throw TestSupportError("cannot read /proc/self/exe: errno \(errno)") }
    let executable = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let directory = (executable as NSString).deletingLastPathComponent
    let probe = directory + "/journal-append-probe"
    guard access(probe, X_OK) == 0 else {
        throw TestSupportError("\(probe) is not built: swift build --build-tests")
    }
    return probe
}
