public import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import Glibc

/// What `clone` made.
public struct CloneReport: Sendable, Equatable {
    public let server: String
    /// The journal's id in hex (the part after `#` that names it on a server holding several).
    public let journalID: String
    public let frames: Int
}

/// `giftkeeper clone`: a device's copy of a journal from its server.
public enum JournalClone {
    /// `giftkeeper clone URL --journal PATH`: makes this device's copy of a journal another
    /// device pushed to the sync service at `url` (the one-time enrolment address `giftkeeper
    /// device add` shows, or the service's address, with `#<id>` — the first hex digits of its
    /// id — when it holds several for this account). Every frame is verified against
    /// the chain on the way; the copy pins the journal's id and first frame, which every
    /// later sync compares the server with. `password` opens this device's key for the
    /// service (sealed under it, docs/threat-model.md), or seals the key a code's enrolment
    /// makes; sign in afterwards with the journal's password.
    /// - Throws: ``ServiceError/Code/journalExists(path:)`` when `path` exists;
    ///   `.cloneNeedsJournal` when the URL names no journal the server holds, or several.
    public static func clone(url: String, to path: String, password: SecureBytes, environment: ServiceEnvironment)
        throws(ServiceError) -> CloneReport
    {
        guard let open = environment.remoteLocation else { throw ServiceError(.noRemote) }
        let parts = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let base = String(parts[0])
        let wanted = parts.count > 1 ? parts[1].lowercased() : ""
        let location: any RemoteLocation
        let ids: [[UInt8]]
        do {
            location = try open(base)
            let cost = environment.allowsTestKeyDerivationCost ? environment.testKeyDerivationCost : nil
            // The password opens this device's key (or seals the one an enrolment code makes).
            try location.useDeviceKey(DeviceKeyAccess(epochs: [], password: password, parameters: cost ?? .moderate))
            ids = try location.journalIDs()
        } catch {
            throw ServiceError(.journal(error))
        }
        let matching = ids.filter { hexString($0).hasPrefix(wanted) }
        guard matching.count == 1, let journalID = matching.first else {
            throw ServiceError(
                .cloneNeedsJournal(server: location.description, found: matching.map { base + "#" + hexString($0.prefix(4)) }))
        }
        let server: (any SharedFrameStore)?
        do {
            server = try location.open(journalID: journalID)
        } catch {
            throw ServiceError(.journal(error))
        }
        guard let server else { throw ServiceError(.cloneNeedsJournal(server: location.description, found: [])) }
        // The frames as they came, each verified once on the way in, written as they are.
        let batch: FrameBatch
        let copy: Journal
        do {
            batch = try server.storedFrames()
            copy = try Journal.createCopy(at: path, header: server.header, frames: batch)
        } catch {
            if error.code == .alreadyExists { throw ServiceError(.journalExists(path: path)) }
            throw ServiceError(.journal(error))
        }
        let cost = environment.allowsTestKeyDerivationCost ? environment.testKeyDerivationCost : nil
        try sealDeviceKey(location, for: copy, at: path, password: password, parameters: cost ?? .moderate)
        if let directory = environment.stateDirectory {
            // A sync service's one-time enrolment code is used now: the service is remembered without it.
            let remembered = String(base.prefix { $0 != "?" }.reversed().drop { $0 == "/" }.reversed())
            var record = try RemoteRecord.new(url: remembered, shared: copy.head)
            record.epoch = server.epoch ?? []  // the copy is of this epoch's journal
            try record.write(to: directory, journalID: journalID, journalPath: path)
        }
        return CloneReport(server: location.description, journalID: hexString(journalID), frames: batch.count)
    }

    /// Checks `password` against the copy's newest key wrap now, not at the first sign-in,
    /// and seals this device's key for that key epoch (the seal the first sign-in would
    /// make, so that sign-in costs no second key derivation). A password that does not open
    /// the copy keeps no copy.
    /// - Throws: ``ServiceError/Code/wrongPassword(recorded:)``.
    private static func sealDeviceKey(
        _ location: any RemoteLocation, for copy: Journal, at path: String, password: SecureBytes, parameters: KDFParameters
    ) throws(ServiceError) {
        let sealed: SealedJournal
        let keyring: Keyring
        do {
            sealed = try SealedJournal(store: copy)
            keyring = try Keyring.unlock(password: password, wraps: sealed.wraps)
        } catch Keyring.UnlockFailure.wrongPassword {
            unlink(path)
            throw ServiceError(.wrongPassword(recorded: false))
        } catch {
            return  // a copy that does not unlock otherwise is said at its sign-in
        }
        defer { keyring.wipe() }
        let epochs = DeviceKeys.epochs(of: sealed, keyring: keyring)
        try? location.useDeviceKey(DeviceKeyAccess(epochs: epochs, password: password, parameters: parameters))
    }
}
