import Foundation
import GiftKeeperDomain

/// NFC normalisation of the text users type, so "é" typed as one code point or two is the
/// same name, title or recipient (SPEC §4).
package func normalized(_ text: String) -> String {
    // ASCII is already NFC: skip Foundation's normaliser (most of an import's text).
    if text.allUTF8Bytes({ $0 < 0x80 }) { return text }
    // So is text of scalars below U+0300 (Latin-1 and Latin Extended: "Léa", "Tomás"): the
    // first scalars that NFC changes or composes (NFC_Quick_Check No or Maybe) are the
    // combining marks from U+0300 on.
    if text.unicodeScalars.allSatisfy({ $0.value < 0x300 }) { return text }
    return text.precomposedStringWithCanonicalMapping
}
