import Glibc

@testable import GiftKeeperCrypto
@testable import GiftKeeperREPL

/// The password readers, fed the input through a pipe: the line reader of scripts and
/// `--password-file` returns the first line (without a final `\r`), refuses a line over
/// 1,024 bytes at its 1,025th byte, and reads nothing past the line's `\n`; the terminal
/// reader applies the keys (erase, Ctrl-U, Ctrl-C, Ctrl-D, Ctrl-Z) as a model of them does.
/// Inputs are cut to 60 KiB, which a pipe holds without a reader.
enum PasswordReaderCheck {
    static let pipeLimit = 60 * 1024

    static func check(_ whole: [UInt8]) throws(InvariantFailure) {
        let input = Array(whole.prefix(pipeLimit))
        try checkLine(input)
        try checkEditedLine(input)
    }

    private static func checkLine(_ input: [UInt8]) throws(InvariantFailure) {
        let fd = pipeHolding(input)
        defer { close(fd) }
        let result = Result(catching: { try PasswordReader.readLine(from: fd) })
        let rest = readToEnd(fd)
        let newline = input.firstIndex(of: UInt8(ascii: "\n"))
        let line = Array(input[..<(newline ?? input.endIndex)])
        if input.isEmpty {
            try require(outcome(result) == .failed(.endOfInput), "an empty input is not the end of input")
        } else if line.count > PasswordReader.capacity {
            try require(outcome(result) == .failed(.tooLong(limit: PasswordReader.capacity)), "an over-long line is not refused")
            try require(rest == Array(input[(PasswordReader.capacity + 1)...]), "an over-long line was read past its byte 1,025")
        } else {
            let expected = line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : line
            try require(outcome(result) == .read(expected), "the line read is not the input's first line")
            try require(rest == Array(input[(newline.map { $0 + 1 } ?? input.endIndex)...]), "the reader consumed past its line")
            try checkNormalization(expected)
        }
    }

    /// NFC normalisation: refuses invalid UTF-8 only, and is idempotent.
    private static func checkNormalization(_ bytes: [UInt8]) throws(InvariantFailure) {
        let valid = String(validating: bytes, as: UTF8.self) != nil
        let once = Result(catching: { try PasswordReader.normalized(secure(bytes)) })
        guard case .read(let normal) = outcome(once) else {
            try require(!valid && outcome(once) == .failed(.invalidUTF8), "a valid UTF-8 password is refused")
            return
        }
        try require(valid, "invalid UTF-8 is accepted as a password")
        try require(
            outcome(Result(catching: { try PasswordReader.normalized(secure(normal)) })) == .read(normal),
            "normalising a normalised password changes it")
    }

    private static func checkEditedLine(_ input: [UInt8]) throws(InvariantFailure) {
        let fd = pipeHolding(input)
        defer { close(fd) }
        var suspensions = 0
        let result = Result(catching: { try PasswordReader.readEditedLine(from: fd, erase: 0x7F) { suspensions += 1 } })
        let (expected, expectedSuspensions) = typed(input)
        try require(outcome(result) == expected, "the terminal reader gives \(outcome(result)), keys typed give \(expected)")
        try require(suspensions == expectedSuspensions, "Ctrl-Z suspended \(suspensions) times, not \(expectedSuspensions)")
    }

    /// What the keys in `input` type at a raw password prompt, then the end of input.
    static func typed(_ input: [UInt8]) -> (Outcome, suspensions: Int) {
        var secret: [UInt8] = []
        var overflowed = false
        var suspensions = 0
        for byte in input {
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                return (overflowed ? .failed(.tooLong(limit: PasswordReader.capacity)) : .read(secret), suspensions)
            case 0x03, 0x1C:
                return (.failed(.interrupted), suspensions)
            case 0x04:
                if secret.isEmpty { return (.failed(.endOfInput), suspensions) }
            case 0x15:
                secret = []
                overflowed = false
            case 0x1A:
                suspensions += 1
            case 0x08, 0x7F:
                // One character: a UTF-8 lead byte and the continuation bytes after it.
                while let last = secret.last, last & 0xC0 == 0x80 { secret.removeLast() }
                if !secret.isEmpty { secret.removeLast() }
            case 0x00..<0x20:
                continue
            default:
                if secret.count < PasswordReader.capacity { secret.append(byte) } else { overflowed = true }
            }
        }
        // The terminal went away mid-line: what was typed is not a password.
        return (.failed(.endOfInput), suspensions)
    }

    enum Outcome: Equatable, CustomStringConvertible {
        case read([UInt8])
        case failed(PasswordInputError.Code)
        case other(String)

        var description: String {
            switch self {
            case .read(let bytes): "a password of \(bytes.count) bytes"
            case .failed(let code): "\(code)"
            case .other(let text): text
            }
        }
    }

    private static func outcome(_ result: Result<SecureBytes, any Error>) -> Outcome {
        switch result {
        case .success(let secret):
            return .read(secret.withUnsafeBytes { Array($0) })
        case .failure(let error as PasswordInputError):
            return .failed(error.code)
        case .failure(let error):
            return .other("\(error)")
        }
    }

    private static func secure(_ bytes: [UInt8]) throws -> SecureBytes {
        let secret = try SecureBytes(capacity: max(bytes.count, 1), count: 0)
        for byte in bytes { _ = secret.append(byte) }
        return secret
    }

    /// The read end of a pipe holding `bytes`, its write end closed.
    private static func pipeHolding(_ bytes: [UInt8]) -> Int32 {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "no pipe")
        var done = 0
        while done < bytes.count {
            let count = bytes[done...].withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
            precondition(count > 0, "the pipe is full")
            done += count
        }
        close(ends[1])
        return ends[0]
    }

    private static func readToEnd(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return out }
            out += block[..<count]
        }
    }
}
