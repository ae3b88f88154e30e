import Foundation
public import Glibc

/// The whole content of a file, or nil when it cannot be read.
public func fileBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

/// The whole content of a file.
public func readBytes(_ path: String) throws -> [UInt8] {
    guard let bytes = fileBytes(path) else { throw TestSupportError("cannot read \(path): errno \(errno)") }
    return bytes
}

/// Writes `bytes` into the file at `path` in place (created when missing, else truncated:
/// the same inode, as a program writing behind an open journal's back does), mode `mode`.
public func writeBytes(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
    try write(bytes, to: path, flags: O_TRUNC, mode: mode)
}

/// Writes `bytes` to a new file at `path` (any file there is unlinked first: a new inode),
/// mode `mode`. Faster than ``writeBytes(_:to:mode:)`` for many copies: ext4 flushes a file
/// truncated and rewritten (auto_da_alloc) on close.
public func writeNewFile(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
    _ = unlink(path)
    try write(bytes, to: path, flags: O_EXCL, mode: mode)
}

private func write(_ bytes: [UInt8], to path: String, flags: Int32, mode: mode_t) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, mode)
    guard fd >= 0 else { throw TestSupportError("cannot open \(path): errno \(errno)") }
    defer { close(fd) }
    guard fchmod(fd, mode) == 0 else { throw TestSupportError("cannot chmod \(path): errno \(errno)") }
    var done = 0
    while done < bytes.count {
        let count = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { throw TestSupportError("cannot write \(path): errno \(errno)") }
        done += count
    }
}

/// The permission bits of `path` itself (`lstat`: a symlink is not followed), or nil when
/// there is nothing there.
public func permissions(of path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

/// Whether `needle` occurs anywhere in `haystack` as a contiguous run (an empty needle does).
public func occurs(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
    guard !needle.isEmpty else { return true }
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { start in
        haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle)
    }
}

/// The repository's root directory (this file is Tests/Support/GiftKeeperTestSupport/FileBytes.swift),
/// for the committed files tests read: golden journals, fuzz corpora, scripts.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// The names in the directory at `path` (without `.` and `..`), sorted.
public func directoryEntries(_ path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}
