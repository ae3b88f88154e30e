// Foundation for one thing: case and accent folding of any script (`folding(options:)`);
// the standard library has no canonical decomposition to strip accents with.
import Foundation

/// How names are compared: `Mum` and `mum`, `Zoë` and `zoe`, `Crème` and `creme` are the
/// same person, occasion or word (SPEC §10). Folding is for comparing only; what people
/// typed first is what is shown.
public enum TextFolding {
    /// The comparison key of `text`: lower case, accents removed, surrounding whitespace
    /// trimmed and inner runs of whitespace made one space.
    public static func key(_ text: String) -> String {
        asciiKey(text) ?? foldedByFoundation(text)
    }

    /// ``key(_:)``, looked up in `known` (keys by text) when `text` is not ASCII: folding
    /// accents goes through Foundation, thousands of instructions, and names recur.
    public static func key(_ text: String, known: [String: String]) -> String {
        asciiKey(text) ?? known[text] ?? foldedByFoundation(text)
    }

    /// The key of an ASCII `text`, lower-cased byte by byte into the new string; nil when
    /// `text` is not ASCII (most names are).
    private static func asciiKey(_ text: String) -> String? {
        var outcome = FoldOutcome.done
        let ascii = String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
            var count = 0
            outcome = foldASCII(text) { byte in
                buffer[count] = byte
                count += 1
                return true
            }
            return outcome == .notASCII ? 0 : count
        }
        return outcome == .notASCII ? nil : ascii
    }

    private static func foldedByFoundation(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return folded.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Whether `text` folds to `key` (`key(text) == key`), without building the key of an
    /// ASCII `text`: compared byte by byte, stopping at the first difference. For the
    /// filters and scans that compare every present's name with one key.
    public static func matches(_ text: String, key: String) -> Bool {
        var expected = key.utf8.makeIterator()
        switch foldASCII(text, { expected.next() == $0 }) {
        case .notASCII: return self.key(text) == key
        case .stopped: return false
        case .done: return expected.next() == nil
        }
    }

    private enum FoldOutcome { case done, stopped, notASCII }

    /// The key of an ASCII `text`, one byte at a time to `emit` (false stops): lower case,
    /// surrounding whitespace dropped, inner runs of it one space. `.notASCII` at the first
    /// byte above 0x7F (what was emitted then is to be thrown away).
    @inline(__always)
    private static func foldASCII(_ text: String, _ emit: (UInt8) -> Bool) -> FoldOutcome {
        text.utf8.withContiguousStorageIfAvailable { foldASCII(bytes: $0, emit) } ?? foldASCII(bytes: text.utf8, emit)
    }

    @inline(__always)
    private static func foldASCII(bytes: some Sequence<UInt8>, _ emit: (UInt8) -> Bool) -> FoldOutcome {
        var pendingSpace = false
        var started = false
        for byte in bytes {
            if byte >= 0x80 { return .notASCII }
            if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                pendingSpace = started
                continue
            }
            if pendingSpace {
                guard emit(0x20) else { return .stopped }
                pendingSpace = false
            }
            started = true
            guard emit(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) else { return .stopped }
        }
        return .done
    }

    /// Whether `text` holds `fragment`, both folded (`--search`).
    public static func contains(_ text: String, folded fragment: String) -> Bool {
        guard !fragment.isEmpty else { return true }
        return key(text).contains(fragment)
    }

    /// The words of `text`, folded: runs of letters and digits (`Blue scarf!` → `blue`, `scarf`).
    public static func words(_ text: String) -> Set<String> {
        words(ofKey: key(text))
    }

    /// The words of a folded key (``key(_:)``), without folding it again.
    public static func words(ofKey folded: String) -> Set<String> {
        // An ASCII key splits on its bytes, without asking Unicode what a letter is.
        if folded.allUTF8Bytes({ $0 < 0x80 }) {
            return Set(folded.utf8.split { !isASCIIWordByte($0) }.map { String(decoding: $0, as: UTF8.self) })
        }
        return Set(folded.split { !($0.isLetter || $0.isNumber) }.map(String.init))
    }

    /// Whether a byte of an ASCII key belongs to a word: a lower-case letter or a digit.
    @inline(__always)
    public static func isASCIIWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
    }
}
