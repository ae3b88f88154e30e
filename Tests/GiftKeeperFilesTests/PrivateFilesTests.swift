import Foundation
import GiftKeeperFiles
import GiftKeeperTestSupport
import Glibc
import Testing

/// The one file layer: modes, no symlinks followed, names given only to whole files.
@Suite struct PrivateFilesTests {
    @Test("Directories are made 0700, files 0600, whatever the umask")
    func modes() throws {
        let directory = try TemporaryDirectory()
        let previous = umask(0)
        defer { umask(previous) }
        let nested = directory.path + "/a/b"
        try PrivateFiles.makeDirectories(nested)
        #expect(permissions(of: directory.path + "/a") == 0o700)
        #expect(permissions(of: nested) == 0o700)
        try PrivateFiles.replace(nested + "/head", with: [1, 2, 3])
        #expect(permissions(of: nested + "/head") == 0o600)
        #expect(PrivateFiles.readSmallFile(nested + "/head") == [1, 2, 3])
    }

    @Test("Without replacing, an existing name is never taken (EEXIST), and no temporary file is left")
    func linkNeverReplaces() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/export.json"
        try PrivateFiles.replace(path, with: Array("old".utf8))
        do {
            let file = try AtomicFile(path: path)
            try file.write(Array("new".utf8))
            #expect(throws: SystemCallError(operation: "link", errno: EEXIST)) { _ = try file.commit(replacing: false) }
        }
        #expect(PrivateFiles.readSmallFile(path) == Array("old".utf8))
        #expect(try directoryEntries(directory.path) == ["export.json"])
    }

    @Test("Replacing swaps in the whole new content; an abandoned file leaves the old one and nothing else")
    func replaceIsAtomic() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/head"
        try PrivateFiles.replace(path, with: [1])
        do {
            let abandoned = try AtomicFile(path: path)
            try abandoned.write([2, 2])
            // An unnamed file (O_TMPFILE) has no name until committed; else a temporary name.
            #expect(try directoryEntries(directory.path).count == (abandoned.isUnnamed ? 1 : 2))
        }
        #expect(PrivateFiles.readSmallFile(path) == [1])
        #expect(try directoryEntries(directory.path) == ["head"])
        try PrivateFiles.replace(path, with: [3, 3, 3])
        #expect(PrivateFiles.readSmallFile(path) == [3, 3, 3])
        #expect(try directoryEntries(directory.path) == ["head"])
    }

    @Test("Partial files of killed writers are found and removed; a running process's file and other names stay")
    func stalePartialFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/export.json"
        // pid_max is at most 2^22: 0x7fffffff names no process.
        let stale = directory.path + "/.export.json.new-7fffffff-1a2b"
        let running = directory.path + "/.export.json.new-\(String(getpid(), radix: 16))-1a2b"
        let other = directory.path + "/.other.json.new-7fffffff-1a2b"
        for name in [stale, running, other] { try writeNewFile(Array("partial".utf8), to: name) }
        #expect(AtomicFile.removeStalePartialFiles(of: path) == [stale])
        #expect(
            try directoryEntries(directory.path).sorted() == [
                ".export.json.new-\(String(getpid(), radix: 16))-1a2b", ".other.json.new-7fffffff-1a2b",
            ])
        #expect(AtomicFile.removeStalePartialFiles(of: path).isEmpty)
    }

    @Test("Where the file system allows it the content has no name until it is whole")
    func unnamedUntilCommitted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/export.json"
        let file = try AtomicFile(path: path)
        try file.write(Array("whole".utf8))
        if file.isUnnamed { #expect(try directoryEntries(directory.path).isEmpty) }
        try file.commit(replacing: true).close()
        #expect(PrivateFiles.readSmallFile(path) == Array("whole".utf8))
        #expect(permissions(of: path) == 0o600)
        #expect(try directoryEntries(directory.path) == ["export.json"])
        // Replacing an existing file the same way.
        let again = try AtomicFile(path: path)
        try again.write(Array("newer".utf8))
        try again.commit(replacing: true).close()
        #expect(PrivateFiles.readSmallFile(path) == Array("newer".utf8))
        #expect(try directoryEntries(directory.path) == ["export.json"])
    }

    @Test("Reading follows no symlink and refuses directories and files over the limit")
    func readSmallFileRefuses() throws {
        let directory = try TemporaryDirectory()
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
