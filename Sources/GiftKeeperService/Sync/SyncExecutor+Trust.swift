import GiftKeeperJournal

/// What a device trusts of its server across syncs (SPEC §12): the server's epoch, which
/// tells an announced restore from a lie, and a server caught lying, to which nothing is
/// sent until a full sync checks out.
extension SyncExecutor {
    /// Whether the server announced a restore since this device last synced level with it:
    /// its epoch is not the one this device remembers. A device that remembers none (its
    /// first sync, or a record written before epochs) takes the server's as it is.
    func serverRestored(_ link: RemoteLink, _ server: any SharedFrameStore) -> Bool {
        guard let epoch = server.epoch, !link.record.epoch.isEmpty else { return false }
        return epoch != link.record.epoch
    }

    /// Whether a server that holds no copy of the journal announced a restore (asked
    /// without a journal): then it gets the journal again, as on a first push.
    func lostInARestore(_ link: RemoteLink) throws(ServiceError) -> Bool {
        let epoch = try remoteCall(link) { () throws(JournalError) in try link.location.serverEpoch() }
        guard let epoch, !link.record.epoch.isEmpty else { return false }
        return epoch != link.record.epoch
    }

    /// After a full sync's checks passed and it brought the journal and the server level:
    /// the server's epoch is taken as this device's, and a server caught lying before is
    /// trusted again (written with the shared head by ``remember(_:shared:)``).
    func checkedOut(_ link: RemoteLink, _ server: any SharedFrameStore) {
        if let epoch = server.epoch {
            if epoch != link.record.epoch { link.record.seen = [:] }
            link.record.epoch = epoch
        }
        link.record.distrusted = false
    }

    /// Remembers, on disk at once, that the server was caught lying (`error` is one of the
    /// lies): nothing is sent to it until a full sync checks out, and the connection is
    /// dropped so that the next sync reads it again. Any other error is left alone.
    func distrustIfLie(_ link: RemoteLink, _ error: ServiceError) {
        guard Self.isLie(error, server: link.location.description) else { return }
        link.store = nil
        link.record.distrusted = true
        try? remember(link, shared: link.record.shared)
    }

    /// Whether `error` says the server at `server` does not hold what it should.
    static func isLie(_ error: ServiceError, server: String) -> Bool {
        switch error.code {
        case .remoteDiverged, .remoteBehind, .remoteHidesFrames, .remoteHidesProgress, .remoteForked, .remoteForgedDeviceHead:
            return true
        case .journal(let failure):
            guard case .corrupt = failure.code else { return false }
            return failure.path.hasPrefix(server)
        default:
            return false
        }
    }
}
