import Foundation
import Glibc
import Testing

/// Searching a running process's memory for text it must not hold (issue 30's idle lock,
/// issue 28's member who must never hold a present planned for them).
enum MemoryScan {
    /// How often each of `needles` occurs (as UTF-8) in the readable memory of process `pid`.
    static func occurrences(of needles: [String], inMemoryOf pid: pid_t) throws -> [String: Int] {
        let counts = try occurrences(ofBytes: needles.map { Array($0.utf8) }, inMemoryOf: pid)
        return Dictionary(uniqueKeysWithValues: zip(needles, counts))
    }

    /// `text` in every form a program may hold it in: UTF-8, UTF-16 (little-endian, as
    /// Foundation's strings may), and hex digits of its UTF-8 (lower and upper case).
    static func forms(of text: String) -> [[UInt8]] {
        let utf8 = Array(text.utf8)
        let utf16 = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let hex = utf8.map { String(format: "%02x", $0) }.joined()
        return [utf8, utf16, Array(hex.utf8), Array(hex.uppercased().utf8)]
    }

    /// How often each of `needles` occurs in the readable memory of process `pid`
    /// (`/proc/PID/maps` and `/proc/PID/mem`; root reads them whatever the process's
    /// dumpable flag), in their order.
    static func occurrences(ofBytes needles: [[UInt8]], inMemoryOf pid: pid_t) throws -> [Int] {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let memory = open("/proc/\(pid)/mem", O_RDONLY)
        try #require(memory >= 0, "cannot open /proc/\(pid)/mem: errno \(errno)")
        defer { close(memory) }
        var counts = [Int](repeating: 0, count: needles.count)
        let overlap = needles.map(\.count).max() ?? 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r"), !line.hasSuffix("[vvar]"), !line.hasSuffix("[vsyscall]")
            else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { Int($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            var offset = bounds[0]
            while offset < bounds[1] {
                let wanted = min(buffer.count, bounds[1] - offset)
                let got = buffer.withUnsafeMutableBytes { pread(memory, $0.baseAddress, wanted, off_t(offset)) }
                guard got > 0 else { break }
                for (index, needle) in needles.enumerated() {
                    counts[index] += count(needle, in: buffer, upTo: got)
                }
                // Step back a needle's length, so that one across two reads is seen (and
                // one wholly inside the overlap is counted twice, which only errs high).
                offset += got == wanted && got > overlap ? got - overlap : got
            }
        }
        return counts
    }

    /// How often `needle` occurs in `buffer[0..<end]` (`memchr` for its first byte, then `memcmp`).
    private static func count(_ needle: [UInt8], in buffer: [UInt8], upTo end: Int) -> Int {
        guard let first = needle.first else { return 0 }
        return buffer.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { wanted in
                guard let base = haystack.baseAddress, let wantedBase = wanted.baseAddress else { return 0 }
                var found = 0
                var start = 0
                while start + needle.count <= end, let hit = memchr(base + start, Int32(first), end - start - needle.count + 1) {
                    let at = UnsafeRawPointer(hit) - base
                    if memcmp(base + at, wantedBase, needle.count) == 0 { found += 1 }
                    start = at + 1
                }
                return found
            }
        }
    }
}
