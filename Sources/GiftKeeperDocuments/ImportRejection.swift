public import GiftKeeperDomain

/// Why an import document was rejected at one place in it, as data (the shell words it).
public enum ImportRejection: Sendable, Equatable {
    /// Not JSON; `detail` is the JSON parser's own account of what and where.
    case notJSON(detail: String)
    /// The document could not be read; `detail` is the decoder's account, when it gave one.
    case unreadable(detail: String?)
    /// The document is not a JSON object.
    case notAnObject
    /// A list (`presents`, `occasions`, `budgets`) is not a list.
    case notAList(of: String)
    /// A member of `presents` is not an object.
    case presentNotAnObject
    /// A value of the wrong kind where the document's shape is fixed, as the decoder says.
    case wrongShape(detail: String)
    /// `format` is absent.
    case formatMissing
    /// `format` is not a string.
    case formatNotAString
    /// `format` names another document than an export v1 or v2.
    case unknownFormat(String)
    /// A member the document's version does not have.
    case unknownField
    /// A required member is absent.
    case missing
    /// A member that must be a string is not.
    case notAString
    /// A member that must be a string or null is neither.
    case notAStringOrNull
    /// A budget's `year` that is not a year from 1 to 9999 (as a string: `"2027"`).
    case invalidYear(String)
    /// A member that must be true or false is not.
    case notABool
    /// A date member is not a date or null.
    case notADate
    /// A time member is not an ISO-8601 UTC time.
    case notATime(String)
    /// An id member is not a present id.
    case notAPresentID(String)
    /// A price member is not a decimal string or null.
    case notAPrice
    /// A status member is not one of the statuses.
    case notAStatus(String)
    /// The same present id is given twice.
    case duplicateID(PresentID)
    /// A present breaks a rule of the gift list (an empty title, a bad price...).
    case rule(DomainError)
    /// A spreadsheet that is not UTF-8 text.
    case notText
    /// A spreadsheet's quoted field never closed.
    case unterminatedQuote
    /// A spreadsheet with no header row.
    case noHeader
    /// A spreadsheet without a column it must have (`recipient`, `title`).
    case missingColumn(String)
    /// A spreadsheet's row with more fields than its header names.
    case tooManyFields(Int, header: Int)
}
