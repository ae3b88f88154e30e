import Foundation

/// A private directory (0700) for the checks that need a file, made once per process.
enum Scratch {
    nonisolated(unsafe) private static var made: String?

    static var directory: String {
        if let made { return made }
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/giftkeeper-fuzz.XXXXXX").utf8CString)
        let path = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard let path else {
            fatalError("cannot make a scratch directory under \(base)")
        }
        let directory = String(cString: path)
        made = directory
        return directory
    }

    /// Writes `bytes` to `path` (mode 0600), replacing what was there.
    static func write(_ bytes: [UInt8], to path: String) {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let count = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            precondition(count > 0, "cannot write \(path)")
            done += count
        }
    }

    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// The names in the scratch directory.
    static func entries() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// Empties the scratch directory.
    static func clear() {
        for name in entries() { unlink(directory + "/" + name) }
    }
}
