import GiftKeeperDomain

/// Reads a `giftkeeper.export.v1` document back into presents, checking every field
/// before anything is appended. A malformed document is rejected whole: broken JSON with
/// its line and column, a bad field with its path (`presents[3].price`).
///
/// A strict JSON reader (RFC 8259) for exactly this document, over its UTF-8 bytes: no
/// Foundation and no untyped tree (`JSONSerialization` was 6.6 µs per present, 41 % of an
/// import). It accepts what `JSONSerialization` accepted for this schema, and rejects
/// invalid UTF-8, raw control characters in strings, lone UTF-16 surrogates, duplicate
/// keys in any object, nesting deeper than ``maximumDepth`` and anything after the document.
/// JSON errors come first (the whole document is read even after a bad field), then the
/// `format` tag, then `presents`, then the first bad present in the order of its fields
/// the old reader checked: unknown field, id, price, status, times, texts.
enum ImportDocument {
    struct Rejection: Error, Equatable {
        let location: String
        /// What is wrong there, in a few words ("it is missing"), or a rule of the list.
        let reason: ImportRejection

        init(location: String, reason: String) {
            self.location = location
            self.reason = .malformed(reason)
        }

        init(location: String, rule: DomainError) {
            self.location = location
            self.reason = .rule(rule)
        }
    }

    /// Deepest nesting of arrays and objects read (the document itself needs 3).
    static let maximumDepth = 512

    static func parse(_ bytes: [UInt8]) throws(Rejection) -> [Present] {
        let result: Result<[Present], Rejection> = bytes.withUnsafeBufferPointer { input in
            var reader = Reader(document: bytes, input: input)
            do throws(Rejection) {
                return .success(try reader.readDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - The reader

extension ImportDocument {
    /// A string as it stands in the document: the bytes between its quotes (UTF-8 checked,
    /// escapes checked but not yet decoded).
    struct StringToken {
        var range: Range<Int>
        var hasEscapes: Bool
        var isASCII: Bool
    }

    /// A present's field as read: absent, a string, null, or another kind of value (named).
    enum FieldValue {
        case absent
        case string(StringToken)
        case null
        case other
    }

    /// The fields of a present, in the order `Present` lists them.
    enum Field: Int, CaseIterable {
        case createdAt, id, notes, occasion, price, recipient, status, title, updatedAt

        var name: String {
            switch self {
            case .createdAt: "createdAt"
            case .id: "id"
            case .notes: "notes"
            case .occasion: "occasion"
            case .price: "price"
            case .recipient: "recipient"
            case .status: "status"
            case .title: "title"
            case .updatedAt: "updatedAt"
            }
        }

        static let names: [[UInt8]] = allCases.map { Array($0.name.utf8) }
    }

    struct Reader {
        let document: [UInt8]
        let input: UnsafeBufferPointer<UInt8>
        var position = 0
        /// Decoded bytes of the last escaped string (reused).
        var scratch: [UInt8] = []

        // What the document said, checked once it has been read whole.
        var format: FormatValue = .absent
        var presentsSeen: PresentsValue = .absent
        var presents: [Present] = []
        var seenIDs: Set<PresentID> = []
        /// The first bad present (its rejection waits until the JSON is known to be good).
        var firstBadPresent: Rejection?
        var fields = [FieldValue](repeating: .absent, count: Field.allCases.count)
        var unknownFields: [String] = []

        enum FormatValue {
            case absent
            case string(String)
            case other
        }

        enum PresentsValue {
            case absent
            case list
            case other
        }

        init(document: [UInt8], input: UnsafeBufferPointer<UInt8>) {
            self.document = document
            self.input = input
            // A UTF-8 byte order mark (some editors write one) is not part of the document.
            if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF { position = 3 }
        }

        // MARK: Document

        mutating func readDocument() throws(Rejection) -> [Present] {
            skipWhitespace()
            guard position < input.count else {
                throw Rejection(location: "the document", reason: "it is empty, not a JSON object")
            }
            let isObject = input[position] == UInt8(ascii: "{")
            if isObject {
                try readRoot()
            } else {
                try skipValue(depth: 1)
            }
            skipWhitespace()
            guard position == input.count else {
                throw syntaxError("unexpected text after the end of the document")
            }
            guard isObject else {
                throw Rejection(location: "the document", reason: "it must be a JSON object")
            }
            switch format {
            case .absent:
                throw Rejection(location: "'format'", reason: "it is missing; expected \"\(ExportDocument.format)\"")
            case .other:
                throw Rejection(location: "'format'", reason: "it must be the string \"\(ExportDocument.format)\"")
            case .string(let text):
                guard text == ExportDocument.format else {
                    throw Rejection(location: "'format'", reason: "'\(text)' is not \"\(ExportDocument.format)\"")
                }
            }
            guard case .list = presentsSeen else {
                throw Rejection(location: "'presents'", reason: "it must be a list of presents")
            }
            if let firstBadPresent { throw firstBadPresent }
            return presents
        }

        /// The top-level object: `format` and `presents` are read, anything else (`account`)
        /// is checked as JSON and ignored.
        mutating func readRoot() throws(Rejection) {
            position += 1  // {
            var keys: Set<[UInt8]> = []
            try readMembers(closing: "'}'") { (reader: inout Reader, key: StringToken) throws(Rejection) in
                let name = reader.bytes(of: key)
                guard keys.insert(name).inserted else {
                    throw Rejection(location: "'\(String(decoding: name, as: UTF8.self))'", reason: "it appears more than once")
                }
                if name.elementsEqual("format".utf8) {
                    if reader.peek() == UInt8(ascii: "\"") {
                        let token = try reader.readString()
                        reader.format = .string(reader.string(token))
                    } else {
                        try reader.skipValue(depth: 2)
                        reader.format = .other
                    }
                } else if name.elementsEqual("presents".utf8) {
                    if reader.peek() == UInt8(ascii: "[") {
                        try reader.readPresents()
                        reader.presentsSeen = .list
                    } else {
                        try reader.skipValue(depth: 2)
                        reader.presentsSeen = .other
                    }
                } else {
                    try reader.skipValue(depth: 2)
                }
            }
        }

        /// `"key": value` pairs up to the closing `}` (the `{` is read): `member` reads each
        /// value (whitespace before it skipped). `closing` names what else may follow a key.
        mutating func readMembers(
            closing: String, _ member: (inout Reader, StringToken) throws(Rejection) -> Void
        ) throws(Rejection) {
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                position += 1
                return
            }
            while true {
                guard peek() == UInt8(ascii: "\"") else { throw syntaxError("expected a key in double quotes") }
                let key = try readString()
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { throw syntaxError("expected ':' after the key") }
                position += 1
                skipWhitespace()
                try member(&self, key)
                if try endOfElement(closedBy: UInt8(ascii: "}"), orElse: "expected ',' or \(closing)") { return }
            }
        }

        /// After an element of an object or array: `,` (then whitespace) means another one
        /// follows (false); `closer` ends the container (true); anything else is an error.
        mutating func endOfElement(closedBy closer: UInt8, orElse expected: String) throws(Rejection) -> Bool {
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                return false
            case closer:
                position += 1
                return true
            default:
                throw syntaxError(expected)
            }
        }

        /// The `presents` list: each present is read and checked.
        mutating func readPresents() throws(Rejection) {
            position += 1  // [
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                position += 1
                return
            }
            presents.reserveCapacity(min(input.count / 200, 1 << 20))
            var index = 0
            while true {
                if peek() == UInt8(ascii: "{") {
                    try readPresent(index)
                } else {
                    try skipValue(depth: 3)
                    if firstBadPresent == nil {
                        firstBadPresent = Rejection(location: "presents[\(index)]", reason: "each present must be an object")
                    }
                }
                index += 1
                if try endOfElement(closedBy: UInt8(ascii: "]"), orElse: "expected ',' or ']'") { return }
            }
        }

        /// One present object: its fields are gathered, then checked in the order of the
        /// old reader (the first bad present is remembered, and later ones only read).
        mutating func readPresent(_ index: Int) throws(Rejection) {
            position += 1  // {
            for slot in fields.indices { fields[slot] = .absent }
            unknownFields.removeAll(keepingCapacity: true)
            try readMembers(closing: "'}'") { (reader: inout Reader, key: StringToken) throws(Rejection) in
                let value: FieldValue
                switch reader.peek() {
                case UInt8(ascii: "\""):
                    value = .string(try reader.readString())
                case UInt8(ascii: "n"):
                    try reader.skipValue(depth: 4)
                    value = .null
                default:
                    try reader.skipValue(depth: 4)
                    value = .other
                }
                if let field = reader.field(named: key) {
                    guard case .absent = reader.fields[field.rawValue] else {
                        throw Rejection(location: "presents[\(index)].\(field.name)", reason: "it appears more than once")
                    }
                    reader.fields[field.rawValue] = value
                } else {
                    let name = reader.string(key)
                    guard !reader.unknownFields.contains(name) else {
                        throw Rejection(location: "presents[\(index)].\(name)", reason: "it appears more than once")
                    }
                    reader.unknownFields.append(name)
                }
            }
            guard firstBadPresent == nil else { return }
            do throws(Rejection) {
                presents.append(try checkedPresent(index))
            } catch {
                firstBadPresent = error
            }
        }

        /// The present the gathered fields describe, or the rejection of its first bad field.
        mutating func checkedPresent(_ index: Int) throws(Rejection) -> Present {
            if let unknown = unknownFields.sorted().first {
                throw Rejection(location: "presents[\(index)].\(unknown)", reason: "unknown field")
            }
            let idText = try text(.id, index)
            guard let id = PresentID(parsing: idText) else {
                throw Rejection(location: "presents[\(index)].id", reason: "'\(idText)' is not a present id like p12")
            }
            guard seenIDs.insert(id).inserted else {
                throw Rejection(location: "presents[\(index)].id", reason: "'\(idText)' appears more than once")
            }
            var price: Money?
            switch fields[Field.price.rawValue] {
            case .absent, .null:
                break
            case .other:
                throw Rejection(location: "presents[\(index)].price", reason: "it must be a decimal string like \"25.00\" or null")
            case .string(let token):
                let priceText = string(token)
                do {
                    price = try Money(parsing: priceText)
                } catch {
                    throw Rejection(location: "presents[\(index)].price", rule: .invalidPrice(priceText, reason: error))
                }
            }
            let statusText = try text(.status, index)
            guard let status = PresentStatus(rawValue: statusText) else {
                throw Rejection(location: "presents[\(index)].status", reason: "'\(statusText)' is not one of idea, bought, wrapped, given")
            }
            let createdAt = try time(.createdAt, index)
            let updatedAt = try time(.updatedAt, index)
            return Present(
                id: id, recipient: try userText(.recipient, index), title: try userText(.title, index),
                notes: try userText(.notes, index, required: false), price: price,
                occasion: try userText(.occasion, index, required: false), status: status,
                createdAt: createdAt, updatedAt: updatedAt)
        }

        /// A string field's token ("it is missing" / "it must be a string" otherwise).
        func token(_ field: Field, _ index: Int, required: Bool = true) throws(Rejection) -> StringToken? {
            switch fields[field.rawValue] {
            case .absent:
                if required { throw Rejection(location: "presents[\(index)].\(field.name)", reason: "it is missing") }
                return nil
            case .null, .other:
                throw Rejection(location: "presents[\(index)].\(field.name)", reason: "it must be a string")
            case .string(let token):
                return token
            }
        }

        mutating func text(_ field: Field, _ index: Int) throws(Rejection) -> String {
            guard let token = try token(field, index) else { return "" }
            return string(token)
        }

        /// Text a person typed: NFC-normalised (ASCII already is).
        mutating func userText(_ field: Field, _ index: Int, required: Bool = true) throws(Rejection) -> String {
            guard let token = try token(field, index, required: required) else { return "" }
            let text = string(token)
            return token.isASCII ? text : normalized(text)
        }

        mutating func time(_ field: Field, _ index: Int) throws(Rejection) -> Timestamp {
            guard let token = try token(field, index) else { return Timestamp(millisecondsSinceEpoch: 0) }
            let value: Timestamp?
            if token.hasEscapes {
                decode(token)
                value = Timestamp(iso8601UTF8: scratch[...])
            } else {
                value = Timestamp(iso8601UTF8: document[token.range])
            }
            guard let value else {
                throw Rejection(
                    location: "presents[\(index)].\(field.name)",
                    reason: "'\(string(token))' is not an ISO-8601 UTC time like 2026-11-22T14:03:07.123Z")
            }
            return value
        }

        /// The known present field a key names (compared after decoding escapes).
        mutating func field(named key: StringToken) -> Field? {
            if key.hasEscapes {
                decode(key)
                return Field.allCases.first { Field.names[$0.rawValue] == scratch }
            }
            let length = key.range.count
            let start = key.range.lowerBound
            for field in Field.allCases {
                let name = Field.names[field.rawValue]
                guard name.count == length else { continue }
                var equal = true
                for offset in 0..<length where input[start + offset] != name[offset] {
                    equal = false
                    break
                }
                if equal { return field }
            }
            return nil
        }

        // MARK: Values skipped (checked as JSON, not kept)

        /// Any JSON value, checked and skipped; objects are checked for duplicate keys.
        mutating func skipValue(depth: Int) throws(Rejection) {
            guard let byte = peek() else { throw syntaxError("expected a value") }
            switch byte {
            case UInt8(ascii: "{"):
                guard depth <= ImportDocument.maximumDepth else {
                    throw syntaxError("arrays and objects nest deeper than \(ImportDocument.maximumDepth) levels")
                }
                position += 1
                var keys: Set<[UInt8]> = []
                try readMembers(closing: "'}'") { (reader: inout Reader, key: StringToken) throws(Rejection) in
                    let keyStart = key.range.lowerBound - 1
                    let name = reader.bytes(of: key)
                    guard keys.insert(name).inserted else {
                        throw reader.syntaxError(
                            "the key '\(String(decoding: name, as: UTF8.self))' appears more than once in this object",
                            at: keyStart)
                    }
                    try reader.skipValue(depth: depth + 1)
                }
            case UInt8(ascii: "["):
                guard depth <= ImportDocument.maximumDepth else {
                    throw syntaxError("arrays and objects nest deeper than \(ImportDocument.maximumDepth) levels")
                }
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    position += 1
                    return
                }
                while true {
                    try skipValue(depth: depth + 1)
                    if try endOfElement(closedBy: UInt8(ascii: "]"), orElse: "expected ',' or ']'") { return }
                }
            case UInt8(ascii: "\""):
                _ = try readString()
            case UInt8(ascii: "t"):
                try literal("true")
            case UInt8(ascii: "f"):
                try literal("false")
            case UInt8(ascii: "n"):
                try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try skipNumber()
            default:
                throw syntaxError("expected a value")
            }
        }

        mutating func literal(_ word: StaticString) throws(Rejection) {
            let matches = word.withUTF8Buffer { expected in
                guard input.count - position >= expected.count else { return false }
                for offset in 0..<expected.count where input[position + offset] != expected[offset] { return false }
                return true
            }
            guard matches else { throw syntaxError("expected a value") }
            position += word.utf8CodeUnitCount
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func skipNumber() throws(Rejection) {
            let start = position
            if peek() == UInt8(ascii: "-") { position += 1 }
            guard let first = peek(), isDigit(first) else { throw syntaxError("invalid number", at: start) }
            position += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if peek() == UInt8(ascii: ".") {
                position += 1
                guard let digit = peek(), isDigit(digit) else { throw syntaxError("invalid number", at: start) }
                skipDigits()
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                position += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
                guard let digit = peek(), isDigit(digit) else { throw syntaxError("invalid number", at: start) }
                skipDigits()
            }
        }

        mutating func skipDigits() {
            while let byte = peek(), isDigit(byte) { position += 1 }
        }

        func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        // MARK: Strings

        /// A string (at its opening quote): checks its UTF-8, its escapes and that no raw
        /// control character is in it; decodes nothing.
        mutating func readString() throws(Rejection) -> StringToken {
            position += 1  // "
            let start = position
            var hasEscapes = false
            var isASCII = true
            while position < input.count {
                let byte = input[position]
                if byte == UInt8(ascii: "\"") {
                    defer { position += 1 }
                    return StringToken(range: start..<position, hasEscapes: hasEscapes, isASCII: isASCII)
                } else if byte == UInt8(ascii: "\\") {
                    hasEscapes = true
                    if try readEscape() >= 0x80 { isASCII = false }
                } else if byte < 0x20 {
                    throw syntaxError(
                        "control character U+\(hex(byte, digits: 4)) in a string: write it escaped (\\n, \\t, \\u\(hex(byte, digits: 4)))")
                } else if byte < 0x80 {
                    position += 1
                } else {
                    isASCII = false
                    try readMultibyteScalar()
                }
            }
            throw syntaxError("the document ends inside a string")
        }

        /// One escape (at its backslash); returns the scalar it stands for.
        mutating func readEscape() throws(Rejection) -> UInt32 {
            let start = position
            position += 1
            guard let byte = peek() else { throw syntaxError("the document ends inside a string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return UInt32(byte)
            case UInt8(ascii: "b"): return 0x08
            case UInt8(ascii: "f"): return 0x0C
            case UInt8(ascii: "n"): return 0x0A
            case UInt8(ascii: "r"): return 0x0D
            case UInt8(ascii: "t"): return 0x09
            case UInt8(ascii: "u"):
                let unit = try readHex4(escapeStart: start)
                switch unit {
                case 0xD800...0xDBFF:
                    // A high surrogate must be followed by an escaped low one.
                    guard input.count - position >= 2, input[position] == UInt8(ascii: "\\"),
                        input[position + 1] == UInt8(ascii: "u")
                    else {
                        throw syntaxError("'\\u\(hex(unit, digits: 4))' is half of a UTF-16 surrogate pair, without its other half", at: start)
                    }
                    let secondStart = position
                    position += 2
                    let low = try readHex4(escapeStart: secondStart)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw syntaxError("'\\u\(hex(unit, digits: 4))' is half of a UTF-16 surrogate pair, without its other half", at: start)
                    }
                    return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                case 0xDC00...0xDFFF:
                    throw syntaxError("'\\u\(hex(unit, digits: 4))' is half of a UTF-16 surrogate pair, without its other half", at: start)
                default:
                    return unit
                }
            default:
                let shown = byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "U+\(hex(byte, digits: 4))"
                throw syntaxError("'\\\(shown)' is not a JSON escape (use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)", at: start)
            }
        }

        mutating func readHex4(escapeStart: Int) throws(Rejection) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = peek() else { throw syntaxError("the document ends inside a string") }
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw syntaxError("'\\u' must be followed by four hexadecimal digits", at: escapeStart)
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        /// One UTF-8 sequence of two to four bytes (RFC 3629: no overlong forms, no
        /// surrogates, nothing above U+10FFFF).
        mutating func readMultibyteScalar() throws(Rejection) {
            let lead = input[position]
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                second = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                second = 0x80...0x9F
            case 0xF0:
                length = 4
                second = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                second = 0x80...0x8F
            default: throw syntaxError("invalid UTF-8")
            }
            guard input.count - position >= length, second.contains(input[position + 1]) else {
                throw syntaxError("invalid UTF-8")
            }
            for offset in 2..<length where input[position + offset] & 0xC0 != 0x80 {
                throw syntaxError("invalid UTF-8")
            }
            position += length
        }

        /// Decodes an escaped string (already checked) into ``scratch``.
        mutating func decode(_ token: StringToken) {
            scratch.removeAll(keepingCapacity: true)
            var index = token.range.lowerBound
            while index < token.range.upperBound {
                let byte = input[index]
                guard byte == UInt8(ascii: "\\") else {
                    scratch.append(byte)
                    index += 1
                    continue
                }
                let kind = input[index + 1]
                index += 2
                var scalar: UInt32
                switch kind {
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "u"):
                    scalar = hexValue(at: index)
                    index += 4
                    if (0xD800...0xDBFF).contains(scalar) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hexValue(at: index + 2) - 0xDC00)
                        index += 6
                    }
                default: scalar = UInt32(kind)  // " \ /
                }
                appendUTF8(scalar)
            }
        }

        /// The UTF-8 form of a scalar (checked: not a surrogate, at most U+10FFFF).
        mutating func appendUTF8(_ scalar: UInt32) {
            switch scalar {
            case ..<0x80:
                scratch.append(UInt8(scalar))
            case ..<0x800:
                scratch.append(0xC0 | UInt8(scalar >> 6))
                scratch.append(0x80 | UInt8(scalar & 0x3F))
            case ..<0x10000:
                scratch.append(0xE0 | UInt8(scalar >> 12))
                scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
                scratch.append(0x80 | UInt8(scalar & 0x3F))
            default:
                scratch.append(0xF0 | UInt8(scalar >> 18))
                scratch.append(0x80 | UInt8(scalar >> 12 & 0x3F))
                scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
                scratch.append(0x80 | UInt8(scalar & 0x3F))
            }
        }

        func hexValue(at index: Int) -> UInt32 {
            var value: UInt32 = 0
            for byte in input[index..<index + 4] {
                let digit: UInt8 =
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                    default: byte - UInt8(ascii: "A") + 10
                    }
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        /// The decoded bytes of a string.
        mutating func bytes(of token: StringToken) -> [UInt8] {
            guard token.hasEscapes else { return Array(document[token.range]) }
            decode(token)
            return scratch
        }

        /// The decoded text of a string.
        mutating func string(_ token: StringToken) -> String {
            guard token.hasEscapes else {
                return String(decoding: UnsafeBufferPointer(rebasing: input[token.range]), as: UTF8.self)
            }
            decode(token)
            return String(decoding: scratch, as: UTF8.self)
        }

        // MARK: Bytes and places

        func peek() -> UInt8? {
            position < input.count ? input[position] : nil
        }

        mutating func skipWhitespace() {
            while position < input.count {
                switch input[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        func hex(_ value: some BinaryInteger, digits: Int) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }

        /// A JSON error at `offset` (the current position by default), located as
        /// `line L, column C` (columns count characters, i.e. Unicode scalars, from 1).
        func syntaxError(_ reason: String, at offset: Int? = nil) -> Rejection {
            let offset = min(offset ?? position, input.count)
            let hasByteOrderMark = input.count >= 3 && input[0] == 0xEF && input[1] == 0xBB && input[2] == 0xBF
            var line = 1
            var lineStart = hasByteOrderMark ? min(3, offset) : 0
            for index in lineStart..<offset where input[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            var column = 1
            for index in lineStart..<offset where input[index] & 0xC0 != 0x80 {
                column += 1
            }
            let atEnd = offset == input.count && !reason.hasPrefix("the document ends")
            return Rejection(location: "line \(line), column \(column)", reason: atEnd ? "the document ends too soon: \(reason)" : reason)
        }
    }
}

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    public let presentsImported: Int
    public let batches: Int

    public init(presentsImported: Int, batches: Int) {
        self.presentsImported = presentsImported
        self.batches = batches
    }

}

/// An export v1 document read and checked as far as it can be without the journal's keys:
/// JSON, the `format` tag, every field, unique ids, prices, statuses, lengths and empty
/// texts. Only "an id already in the journal" is left, for ``GiftKeeperService/importDocument(_:)-(CheckedImportDocument)``.
public struct CheckedImportDocument: Sendable {
    let presents: [Present]

    /// How many presents it holds.
    public var presentCount: Int { presents.count }
}

extension GiftKeeperService {
    /// Events per batch: one fsync each (group commit).
    static let importBatchSize = 1024

    /// The field a domain refusal of an imported present is about (`.title`, `.id` …), so
    /// the rejection names it like the parser's own rejections do.
    private static func field(of error: DomainError) -> String {
        switch error {
        case .emptyValue(let field), .tooLong(let field, _, _), .controlCharacter(let field, _):
            return "." + field.rawValue
        case .presentAlreadyExists, .presentRemoved, .unknownPresent, .invalidPresentID, .presentIDsExhausted,
            .importedIDTooLarge:
            return ".id"
        case .invalidPrice:
            return ".price"
        case .unknownStatus:
            return ".status"
        default:
            return ""
        }
    }

    private static func rejection(_ error: DomainError, at index: Int) -> ServiceError {
        ServiceError(.importRejected(location: "presents[\(index)]" + field(of: error), reason: .rule(error)))
    }

    /// Reads and checks an export v1 document before any journal is opened or password
    /// asked for (SPEC §6), so a malformed one costs no key derivation and appends nothing.
    ///
    /// Every present is also put to the domain's rules against an empty signed-in list,
    /// which checks everything but the ids already in a journal.
    /// - Throws: ``ServiceError/Code/importRejected(location:reason:)`` naming the bad field.
    public static func checkImport(_ bytes: [UInt8]) throws(ServiceError) -> CheckedImportDocument {
        let presents: [Present]
        do {
            presents = try ImportDocument.parse(bytes)
        } catch {
            throw ServiceError(.importRejected(location: error.location, reason: error.reason))
        }
        let blank: GiftList
        do {
            // Any account will do: the rules that need no state are the same for every one.
            blank = GiftList.fold(
                try GiftList.decide(
                    .createAccount(name: "import"), at: Timestamp(millisecondsSinceEpoch: 0), state: GiftList()))
        } catch {
            throw ServiceError(.internalFailure("an empty list to check the import against: \(error)"))
        }
        let at = Timestamp(millisecondsSinceEpoch: 0)
        for (index, present) in presents.enumerated() {
            do {
                _ = try GiftList.decide(.importPresent(present), at: at, state: blank)
            } catch {
                throw rejection(error, at: index)
            }
        }
        return CheckedImportDocument(presents: presents)
    }

    /// Appends the events that recreate the presents of an export v1 document (SPEC §6):
    /// ``checkImport(_:)``, then ``importDocument(_:)-(CheckedImportDocument)``. For a
    /// session already signed in (the REPL's `import FILE`).
    public func importDocument(_ bytes: [UInt8]) throws(ServiceError) -> ImportSummary {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        return try importDocument(Self.checkImport(bytes))
    }

    /// Appends the events that recreate the presents of a checked document.
    ///
    /// Every present is checked against the current state first (an id already used in
    /// this journal, removed presents included); a rejected document appends nothing. Then
    /// the events are appended in batches, each acknowledged only after its fsync.
    public func importDocument(_ document: CheckedImportDocument) throws(ServiceError) -> ImportSummary {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        let presents = document.presents
        let now = environment.now()
        var planned = state
        var events: [Event] = []
        events.reserveCapacity(presents.count)
        for (index, present) in presents.enumerated() {
            do {
                let produced = try GiftList.decide(.importPresent(present), at: now, state: planned)
                for event in produced { planned.apply(event) }
                events += produced
            } catch {
                throw Self.rejection(error, at: index)
            }
        }
        var batches = 0
        var start = 0
        while start < events.count {
            let end = min(start + Self.importBatchSize, events.count)
            let batch = Array(events[start..<end])
            try appendSealed(batch)
            for event in batch { state.apply(event) }
            batches += 1
            start = end
        }
        if !events.isEmpty { acceptRollbackAfterChange() }
        return ImportSummary(presentsImported: presents.count, batches: batches)
    }
}
