import Foundation
import GiftKeeperFiles
import Glibc
import Testing

/// The one file layer: modes, no symlinks followed, names given only to whole files.
@Suite struct PrivateFilesTests {
    /// A fresh directory, removed afterwards.
    final class Directory {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "giftkeeper-files-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test("Directories are made 0700, files 0600, whatever the umask")
    func modes() throws {
        let directory = try Directory()
        let previous = umask(0)
        defer { umask(previous) }
        let nested = directory.path + "/a/b"
        try PrivateFiles.makeDirectories(nested)
        #expect(mode(directory.path + "/a") == 0o700)
        #expect(mode(nested) == 0o700)
        try PrivateFiles.replace(nested + "/head", with: [1, 2, 3])
        #expect(mode(nested + "/head") == 0o600)
        #expect(PrivateFiles.readSmallFile(nested + "/head") == [1, 2, 3])
    }

    @Test("Without replacing, an existing name is never taken (EEXIST), and no temporary file is left")
    func linkNeverReplaces() throws {
        let directory = try Directory()
        let path = directory.path + "/export.json"
        try PrivateFiles.replace(path, with: Array("old".utf8))
        do {
            let file = try AtomicFile(path: path)
            try file.write(Array("new".utf8))
            #expect(throws: SystemCallError(operation: "link", errno: EEXIST)) { _ = try file.commit(replacing: false) }
        }
        #expect(PrivateFiles.readSmallFile(path) == Array("old".utf8))
        #expect(try directory.entries() == ["export.json"])
    }

    @Test("Replacing swaps in the whole new content; an abandoned file leaves the old one and nothing else")
    func replaceIsAtomic() throws {
        let directory = try Directory()
        let path = directory.path + "/head"
        try PrivateFiles.replace(path, with: [1])
        do {
            let abandoned = try AtomicFile(path: path)
            try abandoned.write([2, 2])
            #expect(try directory.entries().count == 2)
        }
        #expect(PrivateFiles.readSmallFile(path) == [1])
        #expect(try directory.entries() == ["head"])
        try PrivateFiles.replace(path, with: [3, 3, 3])
        #expect(PrivateFiles.readSmallFile(path) == [3, 3, 3])
        #expect(try directory.entries() == ["head"])
    }

    @Test("Reading follows no symlink and refuses directories and files over the limit")
    func readSmallFileRefuses() throws {
        let directory = try Directory()
        let target = directory.path + "/target"
        try PrivateFiles.replace(target, with: Array(repeating: 7, count: 100))
        #expect(symlink(target, directory.path + "/link") == 0)
        #expect(PrivateFiles.readSmallFile(directory.path + "/link") == nil)
        #expect(PrivateFiles.readSmallFile(directory.path) == nil)
        #expect(PrivateFiles.readSmallFile(target, limit: 99) == nil)
        #expect(PrivateFiles.readSmallFile(target, limit: 100)?.count == 100)
        #expect(PrivateFiles.readSmallFile(directory.path + "/missing") == nil)
    }

    @Test("errno as data, worded by the C library to read inside a sentence")
    func errnoWords() {
        #expect(errnoText(ENOSPC) == "no space left on device")
        #expect(errnoText(EACCES) == "permission denied")
        #expect(SystemCallError(operation: "fsync", errno: EIO).reason == "input/output error")
    }
}
