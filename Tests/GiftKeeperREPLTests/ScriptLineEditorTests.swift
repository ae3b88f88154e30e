import GiftKeeperCrypto
import Testing

@testable import GiftKeeperREPL

@Suite struct ScriptLineEditorTests {
    private func lines(_ bytes: [UInt8], bufferSize: Int = 64 * 1024) -> [LineInput] {
        let pipe = TestPipe(bytes)
        let editor = ScriptLineEditor(fileDescriptor: pipe.readEnd, bufferSize: bufferSize)
        var result: [LineInput] = []
        while true {
            let input = editor.readLine(prompt: "> ")
            result.append(input)
            if input == .endOfInput { break }
            if result.count > 100_000 { break }
        }
        return result
    }

    @Test(arguments: [16, 64 * 1024])
    func normalCRLFAndEmptyLines(bufferSize: Int) {
        let input = "login\r\nadd Mum 'Blue scarf'\n\n\r\nlist\n"
        #expect(
            lines(Array(input.utf8), bufferSize: bufferSize) == [
                .line("login"), .line("add Mum 'Blue scarf'"), .line(""), .line(""), .line("list"), .endOfInput,
            ])
    }

    @Test func lastLineWithoutNewline() {
        #expect(lines(Array("help\nquit".utf8)) == [.line("help"), .line("quit"), .endOfInput])
    }

    @Test func emptyInputIsEndOfInput() {
        #expect(lines([]) == [.endOfInput])
    }

    @Test func endOfInputRepeats() {
        let pipe = TestPipe("only\n")
        let editor = ScriptLineEditor(fileDescriptor: pipe.readEnd)
        #expect(editor.readLine(prompt: "") == .line("only"))
        #expect(editor.readLine(prompt: "") == .endOfInput)
        #expect(editor.readLine(prompt: "") == .endOfInput)
    }

    @Test func invalidUTF8IsReportedAndReadingGoesOn() {
        let bytes: [UInt8] = Array("ok\n".utf8) + [0x61, 0xFF, 0xFE, 0x0A] + Array("é\n".utf8)
        #expect(lines(bytes) == [.line("ok"), .invalid(.invalidUTF8), .line("é"), .endOfInput])
    }

    @Test(arguments: [16, 4096, 64 * 1024])
    func overlongLineIsSkippedWhole(bufferSize: Int) {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 70 * 1024)
        let bytes = Array("first\n".utf8) + long + [0x0A] + Array("after\n".utf8)
        #expect(
            lines(bytes, bufferSize: bufferSize) == [
                .line("first"), .invalid(.lineTooLong(limit: 64 * 1024)), .line("after"), .endOfInput,
            ])
    }

    @Test func lineOfExactlyTheLimitIsAccepted() {
        let exact = [UInt8](repeating: UInt8(ascii: "y"), count: 64 * 1024)
        let result = lines(exact + [0x0D, 0x0A] + exact + [0x79, 0x0A])
        #expect(result.count == 3)
        #expect(result[0] == .line(String(repeating: "y", count: 64 * 1024)))
        #expect(result[1] == .invalid(.lineTooLong(limit: 64 * 1024)))
    }

    @Test func manyLinesAreRead() {
        let script = (0..<50_000).map { "add p\($0) title\n" }.joined()
        let result = lines(Array(script.utf8), bufferSize: 4096)
        #expect(result.count == 50_001)
        #expect(result[49_999] == .line("add p49999 title"))
    }

    @Test func passwordComesFromTheNextLineThroughTheBuffer() throws {
        let pipe = TestPipe("login\nsecret pass\r\nlist\n")
        let editor = ScriptLineEditor(fileDescriptor: pipe.readEnd)
        #expect(editor.readLine(prompt: "") == .line("login"))
        let password = try editor.readPassword(prompt: "Password: ")
        #expect(password.withUnsafeBytes { Array($0) } == Array("secret pass".utf8))
        #expect(editor.readLine(prompt: "") == .line("list"))
        #expect(throws: PasswordInputError(.endOfInput)) { try editor.readPassword(prompt: "") }
    }

    @Test func overlongScriptPasswordIsConsumed() throws {
        let pipe = TestPipe(String(repeating: "p", count: 2000) + "\nnext\n")
        let editor = ScriptLineEditor(fileDescriptor: pipe.readEnd, bufferSize: 100)
        #expect(throws: PasswordInputError(.tooLong(limit: 1024))) { try editor.readPassword(prompt: "") }
        #expect(editor.readLine(prompt: "") == .line("next"))
    }
}
