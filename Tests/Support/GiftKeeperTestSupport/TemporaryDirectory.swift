import Foundation
import Glibc

/// A fresh private directory (mode 0700, made by `mkdtemp` under `$TMPDIR` or /tmp), removed
/// with everything in it when the last reference goes: what a test made read-only is made
/// writable again first.
public final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: `path` never changes; the directory is the test's own.
    public let path: String

    /// - Parameter prefix: the start of the directory's name, to tell whose it is in /tmp.
    public init(prefix: String = "giftkeeper-test") throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress, mkdtemp(start) != nil else { return nil }
            return String(cString: start)
        }
        guard let made else { throw TestSupportError("mkdtemp under \(base) failed: errno \(errno)") }
        path = made
    }

    /// The path of `name` (a relative path) in this directory.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit {
        if let walker = FileManager.default.enumerator(atPath: path) {
            while let relative = walker.nextObject() as? String { chmod(path + "/" + relative, 0o700) }
        }
        chmod(path, 0o700)
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A failure of the test harness itself (not of the code under test), said in words.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
