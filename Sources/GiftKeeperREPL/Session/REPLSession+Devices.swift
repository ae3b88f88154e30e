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
    /// offline is said once, the changes waiting here for the next sync.
    func syncAfterChange() {
        guard hasRemote else { return }
        do {
            let report = try service.sync()
            saidOffline = false
            if report.createdOnServer { changesElsewhere.append(SyncWords.shared(report)) }
            if report.serverRestored { changesElsewhere.append(SyncWords.restored(report)) }
            changesElsewhere += report.resolutions.map(SyncWords.resolution)
        } catch {
            // `sync` throws only ServiceError (typed throws).
            if let line = offlineLine(error) {
                if !line.isEmpty { changesElsewhere.append(line) }
            } else if case .mergeNeedsSignIn = error.code {
                return  // merged at the next sign-in
            } else {
                self.report(error)
            }
        }
    }

    /// For an unreachable server: the line that says so, or "" when it was said already
    /// (once until the server is reached again). Nil for any other error.
    func offlineLine(_ error: any Error) -> String? {
        guard let error = error as? ServiceError, case .journal(let failure) = error.code else { return nil }
        guard case .unreachable(let failure) = failure.code else { return nil }
        defer { saidOffline = true }
        guard !saidOffline else { return "" }
        return SyncWords.offline(unsent: service.unsentFrames, server: service.remoteURL ?? "the server", reason: failure.words)
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
            if hasRemote, !saidOffline { _ = try? service.sync() }
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
                saidOffline = false
                if report.serverRestored { changesElsewhere.append(SyncWords.restored(report)) }
                changesElsewhere += report.resolutions.map(SyncWords.resolution)
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
