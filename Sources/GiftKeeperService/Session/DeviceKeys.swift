import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperSealing

/// This device's key for the journal's sync service (SPEC §12, docs/threat-model.md): sealed
/// under the journal's key epochs, so the session that signed in opens it with the data
/// keys it already holds — no second key derivation — and hands the server's link what
/// opens it until it signs out. It sets the session's ``GiftKeeperService/deviceAccess``.
struct DeviceKeys {
    unowned let session: GiftKeeperService

    /// What opens this device's key while signed in: the journal's key epochs (each wrap's
    /// clear part and its data key) and a copy of `password` (for a key sealed only for
    /// another journal, or by `clone`), wiped at sign-out. The key file is brought up to
    /// date at once (a clear key sealed, a seal for a new password made and the old one
    /// dropped); a failure there is left for the next sync to say.
    func use(password: SecureBytes?) {
        forget()
        guard let keyring = session.keyring, let sealed = session.sealed else { return }
        let epochs = Self.epochs(of: sealed, keyring: keyring)
        let copy = password.flatMap { password in
            try? SecureBytes(capacity: password.count).filled(from: password)
        }
        session.deviceAccess = DeviceKeyAccess(epochs: epochs, password: copy, parameters: epochs.last?.parameters ?? .moderate)
        if let remote = session.remote {
            try? remote.location.useDeviceKey(session.deviceAccess)
        } else if session.remoteURL != nil {
            _ = try? SyncExecutor(session: session).requireRemote()  // which hands it the access
        }
    }

    /// The key epochs of `sealed`, unlocked as `keyring`, as ``DeviceKeyAccess`` carries them:
    /// each wrap's clear part and its data key.
    static func epochs(of sealed: SealedJournal, keyring: Keyring) -> [DeviceKeyAccess.JournalEpoch] {
        keyring.epochs.compactMap { epoch -> DeviceKeyAccess.JournalEpoch? in
            guard let wrap = sealed.wraps.first(where: { $0.binding.sequence == epoch.wrapSequence }) else { return nil }
            return DeviceKeyAccess.JournalEpoch(
                journalID: sealed.header.journalID, wrapSequence: epoch.wrapSequence, parameters: wrap.payload.parameters,
                salt: wrap.payload.salt, wrappedKey: wrap.payload.wrappedDataKey,
                additionalData: wrap.binding.bytes(for: .wrappedDataKey) + wrap.payload.clearPart, dataKey: epoch.dataKey)
        }
    }

    /// Forgets what opens this device's key (signing out): the password's copy wiped.
    func forget() {
        guard let access = session.deviceAccess else { return }
        session.deviceAccess = nil
        try? session.remote?.location.useDeviceKey(nil)
        access.password?.wipe()
    }
}

extension SecureBytes {
    /// This buffer holding a copy of `other`'s bytes.
    fileprivate func filled(from other: SecureBytes) -> SecureBytes {
        other.withUnsafeBytes { source in
            fill { target in
                target.copyMemory(from: source)
                return source.count
            }
        }
        return self
    }
}
