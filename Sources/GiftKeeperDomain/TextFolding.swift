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
        // Most names are ASCII: lower-cased byte by byte, without Foundation.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count)
            var pendingSpace = false
            for byte in text.utf8 {
                if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                    pendingSpace = !bytes.isEmpty
                    continue
                }
                if pendingSpace {
                    bytes.append(0x20)
                    pendingSpace = false
                }
                bytes.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return folded.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Whether `text` holds `fragment`, both folded (`--search`).
    public static func contains(_ text: String, folded fragment: String) -> Bool {
        guard !fragment.isEmpty else { return true }
        return key(text).contains(fragment)
    }

    /// The words of `text`, folded: runs of letters and digits (`Blue scarf!` → `blue`, `scarf`).
    public static func words(_ text: String) -> Set<String> {
        Set(
            key(text).split { !($0.isLetter || $0.isNumber) }
                .map(String.init))
    }
}
