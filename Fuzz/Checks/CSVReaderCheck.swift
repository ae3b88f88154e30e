import GiftKeeperDocuments

@testable import GiftKeeperDomain
@testable import GiftKeeperREPL

/// The CSV import (`import --csv`): ``CSVReader`` and ``ImportDocument/checkSpreadsheet(_:)``
/// on any bytes. Records written back with RFC 4180 quoting read back to the same fields;
/// every record starts on a line of the file, in order; every row after the header is a
/// present, a rejection naming its line, or a removed present skipped; every present
/// accepted keeps the list's rules (``GiftList/checkedImport(_:)`` takes it as it is, and
/// a new list imports them all); and what `list --csv` writes of them reads back to them.
enum CSVReaderCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        let body = input.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(input.dropFirst(3)) : input
        let lines = body.count { $0 == UInt8(ascii: "\n") } + 1
        let records: [CSVReader.Record]
        do {
            records = try CSVReader.records(input)
        } catch {
            if case .unterminatedQuote(let line) = error {
                try require((1...lines).contains(line), "an unclosed quote is said to open on line \(line) of \(lines)")
            }
            try requireRefused(input, lines: lines)
            return
        }
        try require(
            zip(records, records.dropFirst()).allSatisfy { $0.line < $1.line } && records.allSatisfy { (1...lines).contains($0.line) },
            "records' lines are not increasing lines of the file: \(records.map(\.line)) of \(lines)")
        try require(records.allSatisfy { !$0.fields.isEmpty }, "a record has no field")
        // With a header of two fields or more, any of the three separators: the header's says which.
        let separators: [UInt8] = (records.first?.fields.count ?? 0) >= 2 ? [0x2C, 0x3B, 0x09] : [0x2C]
        for separator in separators {
            let again: [CSVReader.Record]
            do {
                again = try CSVReader.records(written(records.map(\.fields), separator: separator))
            } catch {
                throw InvariantFailure(description: "records written back with RFC 4180 quoting are refused: \(error)")
            }
            try require(
                again.map { $0.fields.map { Array($0.unicodeScalars) } } == records.map { $0.fields.map { Array($0.unicodeScalars) } },
                "records written back with RFC 4180 quoting and separator \(separator) read back to other fields")
        }

        let sheet: CheckedSpreadsheet
        do {
            sheet = try ImportDocument.checkSpreadsheet(input)
        } catch {
            try require(
                error.location == "the file" || error.location == "line 1",
                "a readable file is refused at \(error.location), not as a whole or at its header")
            return
        }
        try require(
            sheet.presents.count + sheet.rejected.count + sheet.removedSkipped == records.count - 1,
            "\(records.count - 1) rows became \(sheet.presents.count) presents, \(sheet.rejected.count) rejections, \(sheet.removedSkipped) skipped"
        )
        let rowLines = Set(records.dropFirst().map(\.line))
        try require(sheet.rejected.allSatisfy { rowLines.contains($0.line) }, "a rejection names a line no row starts on")
        try requireKeepsRules(sheet.presents)

        let exported = StructuredOutput.csv(
            header: StructuredOutput.presentColumns,
            rows: sheet.presents.enumerated().map {
                StructuredOutput.presentRow($0.element, givers: sheet.givers[$0.offset], isRemoved: false)
            })
        guard let back = try? ImportDocument.checkSpreadsheet(exported) else {
            throw InvariantFailure(description: "what list --csv writes of the accepted presents is refused")
        }
        try require(back.rejected.isEmpty, "what list --csv writes of accepted presents is rejected: \(back.rejected)")
        try require(back.presents == sheet.presents, "list --csv → import --csv changes the presents")
        try require(back.givers == sheet.givers, "list --csv → import --csv changes who gives a present together")
    }

    /// Fields as RFC 4180 writes them: every field quoted, quotes doubled, `separator` between.
    static func written(_ records: [[String]], separator: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        for fields in records {
            for (index, field) in fields.enumerated() {
                if index > 0 { out.append(separator) }
                out.append(UInt8(ascii: "\""))
                for byte in field.utf8 {
                    out.append(byte)
                    if byte == UInt8(ascii: "\"") { out.append(byte) }
                }
                out.append(UInt8(ascii: "\""))
            }
            out += [0x0D, 0x0A]
        }
        return out
    }

    /// A file that is not CSV is refused as a spreadsheet, as a whole or at a line of it.
    private static func requireRefused(_ input: [UInt8], lines: Int) throws(InvariantFailure) {
        let result = Result { () throws(ImportDocument.Rejection) in try ImportDocument.checkSpreadsheet(input) }
        guard case .failure(let refusal) = result else {
            throw InvariantFailure(description: "a file the CSV reader refuses is taken as a spreadsheet")
        }
        guard refusal.location != "the file" else { return }
        let line = Int(refusal.location.dropFirst("line ".count)) ?? 0
        try require(
            refusal.location.hasPrefix("line ") && (1...lines).contains(line), "a refusal names \(refusal.location) of \(lines) lines")
    }

    /// The list's rules take every accepted present as it is, and a new list imports them all.
    private static func requireKeepsRules(_ presents: [Present]) throws(InvariantFailure) {
        for present in presents {
            try require((try? GiftList.checkedImport(present)) == present, "an accepted present breaks the list's rules: \(present)")
        }
        let at = Timestamp(millisecondsSinceEpoch: 1_790_000_000_000)
        var state = GiftList()
        do {
            for event in try GiftList.decide(.createAccount(name: "fuzz"), at: at, state: state) { state.apply(event) }
            for (offset, present) in presents.enumerated() {
                var numbered = present
                guard let id = PresentID(number: UInt64(offset + 1)) else { preconditionFailure("ids start at p1") }
                numbered.id = id
                for event in try GiftList.decide(.importPresent(numbered), at: at, state: state) { state.apply(event) }
            }
        } catch {
            throw InvariantFailure(description: "a new list does not import the accepted presents: \(error)")
        }
    }
}
