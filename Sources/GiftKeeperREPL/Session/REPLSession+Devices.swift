import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import Glibc
import OrderedCollections

/// What the shell says of other processes and devices, and of time passing at its prompt
/// (SPEC §12): changes made elsewhere, syncs, being offline, the idle sign-out.
extension REPLSession {
    /// Syncs with the journal's server, if it has one: other devices' changes are told
    /// (with the changes made elsewhere) and so is each resolution of this device's; being
    /// offline is said once, the changes waiting here for the next sync. The change is
    /// recorded here whatever the sync does: a failure is said once as itself (an error when
    /// the person must act on it), never as a change not recorded.
    func syncAfterChange() {
        guard hasRemote else { return }
        do {
            let report = try service.sync(restoringServer: false)
            saidSyncFailure = false
            lastSyncError = nil
            if report.createdOnServer { changesElsewhere.append(SyncWords.shared(report)) }
            changesElsewhere += SyncWords.automatic(report)
        } catch {
            // `sync` throws only ServiceError (typed throws).
            let presented = PresentedError(error)
            if let line = offlineLine(error) {
                if !line.isEmpty { changesElsewhere.append(line) }
            } else if case .mergeNeedsSignIn = error.code {
                return  // merged at the next sign-in
            } else if presented.sentence == lastSyncError {
                exitStatus(presented.exitCode)  // said already, after an earlier change
            } else {
                lastSyncError = presented.sentence
                self.report(error)
            }
        }
    }

    /// For a sync that could not send what waits here, but need not stop anything: the
    /// line that says so, or "" when it was said already (once until the server is reached
    /// again). A server away (offline), an account over its quota, or other devices that
    /// kept appending while this one caught up: the changes are recorded here and go at the
    /// next sync. Nil for any other error (an address, a certificate, this device's
    /// enrolment or rights, a lie), which is reported as itself.
    func offlineLine(_ error: any Error) -> String? {
        guard let error = error as? ServiceError else { return nil }
        let server = service.remoteURL ?? "the server"
        let line: String
        switch error.code {
        case .journal(let failure):
            guard case .unreachable(let reason) = failure.code else { return nil }
            if reason.isOffline {
                line = SyncWords.offline(unsent: service.unsentFrames, server: server, reason: reason.words)
            } else if case .overQuota = reason {
                line = SyncWords.notSent(unsent: service.unsentFrames, server: server, reason: reason.words)
            } else {
                return nil
            }
        case .changedElsewhere:
            line = SyncWords.notSent(unsent: service.unsentFrames, server: server, reason: SyncWords.keptChanging)
        default:
            return nil
        }
        defer { saidSyncFailure = true }
        return saidSyncFailure ? "" : line
    }

    /// Says the changes made elsewhere that were taken in: in the shell on a terminal with
    /// the results, in a script or one-shot on standard error, with the notifications (a
    /// one-shot's standard output is its result only, e.g. an export).
    func sayChangesElsewhere() {
        guard !changesElsewhere.isEmpty else { return }
        progress.clear()
        for sentence in changesElsewhere {
            if isInteractive && !isOneShot { console.print(sentence) } else { console.note(sentence) }
        }
        changesElsewhere = []
    }

    /// While the prompt waits: signs out after the idle time, else looks for changes made
    /// elsewhere.
    func whileIdle(keyPressed: Bool) -> IdleReport {
        if keyPressed { noteActivity() }
        if let lines = signOutIfIdle() { return IdleReport(lines: lines, endsLine: true) }
        return IdleReport(lines: changesWhileIdle())
    }

    /// Remembers that the person did something now (for the idle sign-out).
    func noteActivity() {
        if lockAfter != nil { lastActivity = service.now }
    }

    /// Signs out, recorded and announced with "(idle)", when the prompt waited signed in
    /// for ``lockAfter``; returns the lines to show in the prompt's place, or nil.
    func signOutIfIdle() -> [String]? {
        guard let lockAfter, service.phase == .signedIn, let lastActivity,
            service.now.millisecondsSinceEpoch - lastActivity.millisecondsSinceEpoch >= lockAfter
        else { return nil }
        let notify = service.onNotification
        var lines: [String] = []
        service.onNotification = { notification in
            if case .signedOut = notification {
                lines.append(notification.sentence + " (idle)")
            } else {
                lines.append(notification.sentence)
            }
        }
        defer { service.onNotification = notify }
        do {
            try service.signOut()
            // The locked prompt must not give back what was typed signed in.
            editor.clearHistory()
            if hasRemote, !saidSyncFailure { _ = try? service.sync(restoringServer: false) }
        } catch {
            lines.append(error.sentence)
        }
        return lines.map { TerminalText.sanitized($0) }
    }

    /// While the prompt waits: takes in what other processes changed and returns the lines
    /// to show above the prompt (the changes, a notification such as a sign-out forced by a
    /// password changed elsewhere, or why looking failed, said once).
    func changesWhileIdle() -> [String] {
        guard !idleCheckFailed, service.phase == .signedIn else { return [] }
        let notify = service.onNotification
        var lines: [String] = []
        service.onNotification = { lines.append($0.sentence) }
        defer { service.onNotification = notify }
        do {
            try service.refresh()
            if hasRemote, let report = try service.syncIfNeeded() {
                saidSyncFailure = false
                lastSyncError = nil
                changesElsewhere += SyncWords.automatic(report)
            }
        } catch {
            if let line = offlineLine(error) {
                if !line.isEmpty { lines.append(line) }
            } else {
                idleCheckFailed = true
                lines.append(error.sentence)
            }
        }
        defer { changesElsewhere = [] }
        return (changesElsewhere + lines).map { TerminalText.sanitized($0) }
    }
}
