import GiftKeeperFiles
package import GiftKeeperJournal

/// This device's copy of a household's journal (SPEC §13: "each frame's signature is
/// verified once per device and remembered, so signing in meets §9"): the frames it read
/// from the service, byte for byte as the service keeps them — sealed, so the copy holds
/// no key and no title in clear — in a journal file of format version 3 (mode 0600). With
/// the ``HouseholdMember`` verified mark the device keeps beside it, a sign-in reads from
/// the service only the frames after the copy's (the cursor) and checks the signatures of
/// those alone. A copy of another journal, or of a chain the service no longer holds, is
/// passed over and replaced: it is only ever a head start.
package enum HouseholdCopy {
    /// The copy at `path` when it holds frames of household `journalID`, opened for a sign-in:
    /// verified once, here; its frames are the cursor (``open(_:journalID:copy:)``), its wrap
    /// of the member opens with their password (``HouseholdMember/unlock(_:as:password:recoveryCode:)``),
    /// and it takes what the sign-in read (``keep(_:at:opened:)``) without being read again.
    package static func opened(at path: String, journalID: [UInt8]) -> Journal? {
        guard let copy = try? Journal.open(at: path, access: .readWrite), copy.header.journalID == journalID, copy.head.sequence > 0
        else { return nil }
        return copy
    }

    /// The service's copy of household `journalID`, read after the frames of the device's
    /// `copy` (``opened(at:journalID:)``) when there is one (every frame otherwise).
    package static func open(_ remote: any RemoteLocation, journalID: [UInt8], copy: Journal?) throws(JournalError)
        -> (any SharedFrameStore)?
    {
        guard let copy, let known = try? copy.frames() else { return try remote.open(journalID: journalID) }
        return try remote.open(journalID: journalID, known: known)
    }

    /// The service's copy of household `journalID`, read after the frames of the copy at
    /// `path` when it holds some of that journal (every frame otherwise).
    package static func open(_ remote: any RemoteLocation, journalID: [UInt8], copy path: String) throws(JournalError)
        -> (any SharedFrameStore)?
    {
        try open(remote, journalID: journalID, copy: opened(at: path, journalID: journalID))
    }

    /// Keeps what `store` holds in the copy at `path` (`opened` there already, when given):
    /// the frames after the copy's appended to it, or, when the copy is of another journal or
    /// chain, a new copy in its place.
    package static func keep(_ store: any FrameStore, at path: String, opened: Journal? = nil) throws {
        if let copy = opened ?? (try? Journal.open(at: path, access: .readWrite)), copy.header.journalID == store.header.journalID,
            let batch = try frames(of: store, after: copy.head)
        {
            guard !batch.isEmpty else { return }
            if case .appended = try copy.append(batch) { return }
        }
        try? FileSystem.unlink(path)
        guard let whole = try frames(of: store, after: JournalHead(sequence: 0, hash: store.header.genesisHash)) else { return }
        _ = try Journal.createCopy(at: path, header: store.header, frames: whole)
    }

    /// The copy's frames, when it is one of `journalID`: verified once, as the file opens.
    static func frames(at path: String, journalID: [UInt8]) throws -> FrameBatch? {
        let copy = try Journal.open(at: path, access: .readOnly)
        guard copy.header.journalID == journalID else { return nil }
        return try copy.frames()
    }

    /// `store`'s frames after `head`, nil when its chain does not pass through `head`.
    private static func frames(of store: any FrameStore, after head: JournalHead) throws -> FrameBatch? {
        guard store.head.sequence >= head.sequence else { return nil }
        guard store.head.sequence > head.sequence else { return store.head == head ? FrameBatch(after: head, path: store.name) : nil }
        var batch = FrameBatch(after: head, path: store.name)
        var chained = true
        try store.read(after: head.sequence, progress: nil) { frame in
            if frame.sequence == head.sequence + 1 { chained = Array(frame.previousHash) == head.hash }
            if chained { try batch.add(kind: frame.kind, payload: Array(frame.payload)) }
        }
        return chained ? batch : nil
    }
}
