import GiftKeeperCrypto
import Testing

@testable import GiftKeeperREPL

/// The raw-terminal password prompt's own line editing, fed through a pipe as the
/// terminal would deliver the keys (echo, canonical mode and signal keys off).
@Suite struct PasswordPromptEditingTests {
    private func read(_ keys: [UInt8]) throws -> [UInt8] {
        let pipe = TestPipe(keys)
        let secret = try PasswordReader.readEditedLine(from: pipe.readEnd, erase: 0x7F)
        return secret.withUnsafeBytes { Array($0) }
    }

    @Test func enterEndsTheLine() throws {
        #expect(try read(Array("correct horse\r".utf8)) == Array("correct horse".utf8))
        #expect(try read(Array("pw\nignored".utf8)) == Array("pw".utf8))
        #expect(try read([0x0D]) == [])
    }

    @Test func backspaceAndControlUEdit() throws {
        // "secrex" ⌫ "t" → "secret"; DEL and ^H both erase; erasing past the start is harmless.
        #expect(try read(Array("secrex".utf8) + [0x7F] + Array("t\r".utf8)) == Array("secret".utf8))
        #expect(try read(Array("ab".utf8) + [0x08, 0x08, 0x08] + Array("c\r".utf8)) == Array("c".utf8))
        // ^U drops everything typed so far.
        #expect(try read(Array("wrong".utf8) + [0x15] + Array("right\r".utf8)) == Array("right".utf8))
    }

    /// Found by fuzzing (Fuzz/Corpus/password-reader): erase took one byte of a multi-byte
    /// character, and a terminal gone mid-line (read returns 0) made the prompt spin for ever.
    @Test func eraseTakesAWholeCharacterAndAHangUpEndsThePrompt() throws {
        #expect(try read(Array("pé".utf8) + [0x7F] + Array("e\r".utf8)) == Array("pe".utf8))
        #expect(try read(Array("a€".utf8) + [0x7F, 0x7F] + Array("b\r".utf8)) == Array("b".utf8))
        #expect(throws: PasswordInputError(.endOfInput)) { try read(Array("typed, then the terminal went away".utf8)) }
    }

    /// Control keys never become part of a password; Ctrl-Z suspends and the line goes on.
    @Test func controlKeysAreDroppedAndControlZSuspends() throws {
        // Esc [ A (an arrow key) and Tab are dropped; "[A" are ordinary characters.
        #expect(try read(Array("ab".utf8) + [0x1B] + Array("[A".utf8) + [0x09] + Array("c\r".utf8)) == Array("ab[Ac".utf8))
        var suspended = 0
        let pipe = TestPipe(Array("se".utf8) + [0x1A] + Array("cret\r".utf8))
        let secret = try PasswordReader.readEditedLine(from: pipe.readEnd, erase: 0x7F) { suspended += 1 }
        #expect(suspended == 1)
        #expect(secret.withUnsafeBytes { Array($0) } == Array("secret".utf8))
        #expect(throws: PasswordInputError(.interrupted)) { try read(Array("abc".utf8) + [0x1C]) }
    }

    @Test func controlCCancelsAndControlDOnAnEmptyLineEnds() throws {
        #expect(throws: PasswordInputError(.interrupted)) { try read(Array("abc".utf8) + [0x03]) }
        #expect(throws: PasswordInputError(.endOfInput)) { try read([0x04]) }
        #expect(throws: PasswordInputError(.endOfInput)) { try read([]) }
        // ^D in the middle of a line is ignored, as in a shell.
        #expect(try read(Array("ab".utf8) + [0x04] + Array("c\r".utf8)) == Array("abc".utf8))
    }

    @Test func anOverlongLineIsRefusedWhole() throws {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: PasswordReader.capacity + 1) + [0x0D]
        #expect(throws: PasswordInputError(.tooLong(limit: PasswordReader.capacity))) { try read(long) }
        // Exactly the capacity fits.
        let full = [UInt8](repeating: UInt8(ascii: "y"), count: PasswordReader.capacity)
        #expect(try read(full + [0x0D]) == full)
    }

    @Test func keysAreClassified() {
        #expect(PasswordReader.PromptKey(0x03, erase: 0x7F) == .cancel)
        #expect(PasswordReader.PromptKey(0x04, erase: 0x7F) == .endOfInput)
        #expect(PasswordReader.PromptKey(0x15, erase: 0x7F) == .eraseLine)
        #expect(PasswordReader.PromptKey(0x17, erase: 0x17) == .eraseCharacter)  // a custom erase key
        #expect(PasswordReader.PromptKey(0xC3, erase: 0x7F) == .character(0xC3))  // UTF-8 bytes pass through
        #expect(PasswordReader.PromptKey(0x1A, erase: 0x7F) == .suspend)  // Ctrl-Z
        #expect(PasswordReader.PromptKey(0x1C, erase: 0x7F) == .cancel)  // Ctrl-\
        for control: UInt8 in [0x00, 0x09, 0x1B, 0x1F] {
            #expect(PasswordReader.PromptKey(control, erase: 0x7F) == .ignored)
        }
    }
}
