package import GiftKeeperDomain

/// The one JSON writer: the export document, `audit --json`, and every `--json` output.
///
/// Text in the layout of `JSONEncoder` with `[.sortedKeys, .prettyPrinted,
/// .withoutEscapingSlashes]` where it writes a document (`"key" : value`, two-space
/// indents): `"`, `\\` and control characters escaped (`\n`, `\t`… or `\u00XX`),
/// everything else as UTF-8. Written straight into one reused byte buffer.
public struct JSONWriter {
    public var bytes: [UInt8] = []

    public init() {}

    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Hands over every whole chunk and keeps the rest (less than a chunk) at the front.
    package mutating func emitFullChunks<Failure: Error>(
        chunkSize: Int, to emit: (ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        var start = 0
        while bytes.count - start >= chunkSize {
            try emit(bytes[start..<start + chunkSize])
            start += chunkSize
        }
        bytes.removeSubrange(0..<start)  // keeps the capacity
    }

    /// Hands over everything written (the end of the document).
    package mutating func emitAll<Failure: Error>(
        chunkSize: Int, to emit: (ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        try emitFullChunks(chunkSize: chunkSize, to: emit)
        if !bytes.isEmpty { try emit(bytes[...]) }
        bytes.removeAll()
    }

    /// Decimal digits of `value`, as `String(value)` writes them.
    public mutating func decimal(_ value: UInt64) {
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // UInt64.max has 20 digits
        withUnsafeMutableBytes(of: &scratch) { out in
            var start = out.count
            var rest = value
            repeat {
                start -= 1
                out[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: out[start...]))
        }
    }

    /// A price as the JSON string `Money.description` gives (`"25.00"`).
    package mutating func price(_ price: Money) {
        guard price.minorUnits >= 0 else { return string(price.description) }  // never: Money is non-negative
        let units = UInt64(price.minorUnits)
        bytes.append(UInt8(ascii: "\""))
        decimal(units / 100)
        let cents = UInt8(units % 100)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + cents / 10)
        bytes.append(UInt8(ascii: "0") + cents % 10)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string. Besides what JSON requires (`"`, `\\`, C0 controls), DEL,
    /// the C1 controls (U+0080–U+009F) and the bidirectional controls (embeddings,
    /// overrides, isolates, marks: ``escapesScalar(_:)``) are written as `\uXXXX`, so no
    /// stored text reaches a terminal or an editor as a control through a JSON document;
    /// a JSON reader reads back the same string.
    public mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                if byte < 0x80 {
                    if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F {
                        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                        escape(byte)
                        start = index + 1
                    }
                    index += 1
                    continue
                }
                // A multi-byte scalar (the text is valid UTF-8): every one escaped is under U+10000.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                let value: UInt32 =
                    switch length {
                    case 2: UInt32(byte & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
                    case 3:
                        UInt32(byte & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)
                    default: 0x10000
                    }
                if Self.escapesScalar(value) {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    unicodeEscape(value)
                    start = index + length
                }
                index += length
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether a scalar at or above U+0080 is written `\uXXXX`: the C1 controls, and the
    /// bidirectional controls a terminal or editor acts on (text shown reversed): the
    /// embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), the left-to-right
    /// and right-to-left marks (U+200E, U+200F) and the Arabic letter mark (U+061C).
    package static func escapesScalar(_ value: UInt32) -> Bool {
        switch value {
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `\u` and four lower-case hex digits.
    private mutating func unicodeEscape(_ value: UInt32) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        raw("\\u")
        for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int(value >> UInt32(shift)) & 0xF]) }
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case 0x22: raw("\\\"")
        case 0x5C: raw("\\\\")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        default: unicodeEscape(UInt32(byte))
        }
    }
}

/// A JSON value: a field of a one-line object (`audit --json`), or a whole `--json` document.
public indirect enum JSONValue: Sendable {
    case string(String)
    case number(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    /// Keys in the order given.
    case object([(String, JSONValue)])

    /// A string, or null when nil (an optional field).
    public static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}

extension JSONWriter {
    /// One compact JSON object, keys in the order given: `{"seq":1,"type":"keyWrap"}`.
    public static func line(_ pairs: [(String, JSONValue)]) -> String {
        var writer = JSONWriter()
        writer.value(.object(pairs), indent: nil)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A whole document, in the export's layout (two-space indents, `"key" : value`, keys
    /// in the order given), with a final newline: what every `--json` prints.
    public static func document(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(value, indent: 0)
        writer.raw("\n")
        return writer.bytes
    }

    /// `value`, compact when `indent` is nil, else pretty-printed at that depth.
    private mutating func value(_ value: JSONValue, indent: Int?) {
        switch value {
        case .string(let text): string(text)
        case .number(let number):
            if number < 0 { raw("-") }
            decimal(number.magnitude)
        case .bool(let flag): raw(flag ? "true" : "false")
        case .null: raw("null")
        case .array(let items):
            guard !items.isEmpty else { return raw("[]") }
            raw("[")
            for (index, item) in items.enumerated() {
                if index > 0 { raw(",") }
                newline(indent.map { $0 + 1 })
                self.value(item, indent: indent.map { $0 + 1 })
            }
            newline(indent)
            raw("]")
        case .object(let pairs):
            guard !pairs.isEmpty else { return raw("{}") }
            raw("{")
            for (index, (key, item)) in pairs.enumerated() {
                if index > 0 { raw(",") }
                newline(indent.map { $0 + 1 })
                string(key)
                if indent == nil { raw(":") } else { raw(" : ") }
                self.value(item, indent: indent.map { $0 + 1 })
            }
            newline(indent)
            raw("}")
        }
    }

    /// A line break and `depth` indents; nothing in compact form.
    private mutating func newline(_ depth: Int?) {
        guard let depth else { return }
        raw("\n")
        for _ in 0..<depth { raw("  ") }
    }
}
