import GiftKeeperDocuments
public import GiftKeeperDomain
import OrderedCollections

/// Where ``GiftKeeperService/export(to:)`` writes the document: standard output, a file.
public protocol ExportWriting {
    /// Writes the next piece of the document (at most ``ExportDocument/chunkSize`` bytes).
    mutating func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError)

    /// Called once after the last chunk, before the export is recorded: make the document
    /// durable (fsync a file). A failure here records nothing.
    mutating func finish() throws(ServiceError)
}

extension GiftKeeperService {
    /// Exports the decrypted state as an export v2 document: hands it to `destination` in
    /// successive chunks of at most ``ExportDocument/chunkSize`` bytes, calls its
    /// `finish()`, and only once all of that succeeded records a `stateExported` event
    /// (acknowledged after fsync). A failed write records nothing; a journal that can no
    /// longer be written gets no export.
    ///
    /// Never holds more of the document than one chunk and one present, so an export's
    /// memory is the state's plus about 1 MB.
    ///
    /// `asOf` exports the state the journal had then (``state(asOf:)``) instead of today's.
    public func export(to destination: inout some ExportWriting, asOf: GiftList? = nil) throws(ServiceError) {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        // An export is recorded; one that could not be is not made (the journal failed a
        // write earlier in this session, e.g. on a full disk).
        try requireAppendable()
        let exported = asOf ?? state
        try ExportDocument.write(exported) { chunk throws(ServiceError) in try destination.write(chunk) }
        try destination.finish()
        try decideAndAppend(.recordExport(presentCount: exported.presents.count))
    }
}
