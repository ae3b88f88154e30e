import Foundation
import GiftKeeperCrypto
import GiftKeeperTestSupport
import Glibc
import Testing

@testable import GiftKeeperREPL

@Suite struct PasswordReaderTests {
    private func bytes(_ secret: SecureBytes) -> [UInt8] {
        secret.withUnsafeBytes { Array($0) }
    }

    @Test func readsExactlyOneLineFromAPipe() throws {
        let pipe = TestPipe("correct horse\r\nsecond line\nthird")
        let password = try PasswordReader.readLine(from: pipe.readEnd)
        #expect(bytes(password) == Array("correct horse".utf8))
        #expect(password.capacity == PasswordReader.capacity)
        // Nothing after the newline was consumed: a script reader sees the next line.
        let editor = ScriptLineEditor(fileDescriptor: pipe.readEnd)
        #expect(editor.readLine(prompt: "") == .line("second line"))
        #expect(editor.readLine(prompt: "") == .line("third"))
    }

    @Test func successiveLinesAndEnd() throws {
        let pipe = TestPipe("one\n\ntwo")
        let source = FileDescriptorPasswordSource(fileDescriptor: pipe.readEnd)
        #expect(bytes(try source.readPassword(prompt: "")) == Array("one".utf8))
        #expect(bytes(try source.readPassword(prompt: "")) == [])
        #expect(bytes(try source.readPassword(prompt: "")) == Array("two".utf8))
        #expect(throws: PasswordInputError(.endOfInput)) { try source.readPassword(prompt: "") }
    }

    @Test func capacityIsTheLimit() throws {
        let exact = String(repeating: "a", count: 1024)
        let pipe = TestPipe(exact + "\n" + exact + "b\nafter\n")
        #expect(bytes(try PasswordReader.readLine(from: pipe.readEnd)).count == 1024)
        #expect(throws: PasswordInputError(.tooLong(limit: 1024))) {
            try PasswordReader.readLine(from: pipe.readEnd)
        }
        // Refused at byte 1025: nothing more of that line was read.
        #expect(bytes(try PasswordReader.readLine(from: pipe.readEnd)) == [])
        #expect(bytes(try PasswordReader.readLine(from: pipe.readEnd)) == Array("after".utf8))
    }

    @Test("An endless first line (< /dev/zero) is refused at once, not read to its end")
    func anEndlessLineIsRefusedAtOnce() throws {
        let zero = open("/dev/zero", O_RDONLY | O_CLOEXEC)
        #expect(zero >= 0)
        defer { close(zero) }
        // Read to its end, the line would never be refused: that it is shows the read stopped.
        #expect(throws: PasswordInputError(.tooLong(limit: 1024))) { try PasswordReader.readLine(from: zero) }
    }

    @Test func normalizationKeepsASCIIAndComposesTheRest() throws {
        let ascii = try SecureBytes(capacity: 8, count: 0)
        for byte in "abc".utf8 { ascii.append(byte) }
        #expect(try PasswordReader.normalized(ascii) === ascii)

        let decomposed = try SecureBytes(capacity: 16, count: 0)
        for byte in "e\u{0301}t\u{00E9}".utf8 { decomposed.append(byte) }
        let composed = try PasswordReader.normalized(decomposed)
        #expect(bytes(composed) == Array("\u{00E9}t\u{00E9}".utf8))
        #expect(decomposed.count == 0)

        let invalid = try SecureBytes(capacity: 2, count: 0)
        invalid.append(0xC3)
        #expect(throws: PasswordInputError(.invalidUTF8)) { try PasswordReader.normalized(invalid) }
    }

    @Test func passwordFileRefusesGroupOrWorldAccess() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("password")
        try writeBytes(Array("hunter2\n".utf8), to: path, mode: 0o644)
        let error = try #require(throws: PasswordInputError.self) { try PasswordFile.open(path) }
        #expect(error.code == .tooPermissive(path: path, mode: 0o100644))
        #expect(error.description.hasSuffix("chmod 600 '\(path)'"))
    }

    @Test func passwordFileAcceptsOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("password")
        try writeBytes(Array("hunter2\r\nignored\n".utf8), to: path)
        let file = try PasswordFile.open(path)
        #expect(bytes(try file.readPassword()) == Array("hunter2".utf8))
        #expect(bytes(try file.readPassword(prompt: "")) == Array("hunter2".utf8))
    }

    @Test func passwordFileMissingOrDirectory() throws {
        #expect(throws: PasswordInputError(.fileNotFound(path: "/nonexistent/pw"))) {
            try PasswordFile.open("/nonexistent/pw")
        }
        let directory = try TemporaryDirectory()
        #expect(throws: PasswordInputError(.isDirectory(path: directory.path))) {
            try PasswordFile.open(directory.path)
        }
    }

    @Test func emptyPasswordFileIsEndOfInput() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("password")
        try writeBytes([], to: path)
        #expect(throws: PasswordInputError(.endOfInput)) { try PasswordFile.open(path).readPassword() }
    }
}
