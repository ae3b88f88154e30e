import Foundation
import GiftKeeperREPL
import GiftKeeperService
import GiftKeeperTestSupport
import Glibc
import Testing

/// Export files: written whole or not at all, always mode 0600.
@Suite struct PrivateFileTests {
    @Test func finishReplacesTheFileWholeWithMode0600() throws {
        let temporary = try TemporaryDirectory()
        defer { withExtendedLifetime(temporary) {} }
        let directory = temporary.path
        let path = directory + "/gifts.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
        let writer = PrivateFile.Writer(path: path)
        try writer.write(Array("{\"a\":".utf8)[...])
        // Until finish, the old file is untouched.
        #expect(fileBytes(path) == Array("old".utf8))
        try writer.write(Array("1}\n".utf8)[...])
        try writer.finish()
        #expect(fileBytes(path) == Array("{\"a\":1}\n".utf8))
        #expect(permissions(of: path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["gifts.json"])
    }

    /// Without --force the name is given with link(2): a file (or symlink) that appeared at
    /// the path after the early check (while the password was typed) is kept, and the
    /// export fails with "already exists", leaving no temporary file.
    @Test func withoutReplacingAFileThatAppearedMeanwhileIsKept() throws {
        let temporary = try TemporaryDirectory()
        defer { withExtendedLifetime(temporary) {} }
        let directory = temporary.path
        for (name, makeIt) in [
            ("late.json", { (path: String) in _ = FileManager.default.createFile(atPath: path, contents: Data("precious".utf8)) }),
            ("late-link.json", { (path: String) in _ = symlink(directory + "/target", path) }),
        ] {
            let path = directory + "/" + name
            try PrivateFile.checkWritable(path, replacing: false)
            let writer = PrivateFile.Writer(path: path, replacing: false)
            try writer.write(Array("{}".utf8)[...])
            makeIt(path)
            let error = try #require(throws: ServiceError.self) { try writer.finish() }
            #expect(error.sentence.contains("already exists"), "\(error)")
        }
        #expect(fileBytes(directory + "/late.json") == Array("precious".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["late-link.json", "late.json"])
        // With nothing in the way, the same writer names the file.
        let fresh = PrivateFile.Writer(path: directory + "/fresh.json", replacing: false)
        try fresh.write(Array("{}".utf8)[...])
        try fresh.finish()
        #expect(fileBytes(directory + "/fresh.json") == Array("{}".utf8))
        #expect(permissions(of: directory + "/fresh.json") == 0o600)
    }

    @Test func anAbandonedExportLeavesNothingBehind() throws {
        let temporary = try TemporaryDirectory()
        defer { withExtendedLifetime(temporary) {} }
        let directory = temporary.path
        let path = directory + "/gifts.json"
        do {
            let writer = PrivateFile.Writer(path: path)
            try writer.write(Array("partial".utf8)[...])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
    }

    @Test func aBadDestinationIsFoundBeforeAnythingIsWritten() throws {
        let temporary = try TemporaryDirectory()
        defer { withExtendedLifetime(temporary) {} }
        let directory = temporary.path
        #expect(throws: ServiceError.self) { try PrivateFile.checkWritable(directory + "/missing/gifts.json", replacing: false) }
        #expect(throws: ServiceError.self) { try PrivateFile.checkWritable(directory, replacing: true) }
        try PrivateFile.checkWritable(directory + "/gifts.json", replacing: false)
        // An existing file (or a symlink, dangling or not) is replaced only when asked.
        _ = FileManager.default.createFile(atPath: directory + "/existing.json", contents: Data("mine".utf8))
        _ = symlink(directory + "/nowhere", directory + "/link.json")
        for taken in [directory + "/existing.json", directory + "/link.json"] {
            let error = try #require(throws: ServiceError.self) { try PrivateFile.checkWritable(taken, replacing: false) }
            #expect(error.exitCode == 2 && error.sentence.contains("--force"), "\(error)")
            try PrivateFile.checkWritable(taken, replacing: true)
        }
    }
}
