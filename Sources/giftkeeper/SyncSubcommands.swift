import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperREPL
import GiftKeeperService

/// `giftkeeper sync`: brings the journal and its server's copy level (SPEC §12). It signs
/// in (the password, as every one-shot): this device's key for the service is sealed under
/// the journal's password, offline changes are decided again after other devices' with the
/// keys, and this device is told which of its changes others overrode.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send this device's changes to the journal's server and take in other devices' (signs in).",
        discussion: """
            The server is --remote URL, else $GIFTKEEPER_REMOTE, else the one remembered for the journal; \
            the first sync with a server makes the journal's copy there. Another device then uses \
            'giftkeeper clone URL --journal PATH'. Exit 1 when the server does not hold what this device saw there.
            """)

    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption
    @Flag(help: "The server holds fewer frames than this device saw there (restored from a backup): send them back.")
    var restoreServer = false

    func run() throws {
        try runOneShotTask(journal: journal, password: password) { session in
            let (service, console) = (session.service, session.console)
            service.onChangesElsewhere = { entries in
                for line in entries.compactMap(HistoryWords.elsewhere) { console.note(line) }
            }
            try session.signIn(catchingUp: false)
            let report = try service.sync(restoringServer: restoreServer)
            for line in SyncWords.told(report) { console.print(line) }
            console.print(SyncWords.report(report))
        }
    }
}

/// `giftkeeper clone URL --journal PATH`: this device's copy of a journal another device
/// pushed to a server.
struct Clone: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Copy a journal from its server onto this device (then sign in with its password).",
        discussion: """
            URL is the one-time address 'giftkeeper device add' shows on a device that shares the journal \
            (https://HOST[:PORT]/?enrol=CODE#ID), or the service's https://HOST[:PORT] with #ID — the first hex \
            digits of the journal's id, as 'sync' shows it — for a device already enrolled there. \
            It asks for the journal's password: this device's key for the service is kept sealed under it. \
            Every frame is verified on the way; the copy pins the journal's id and first frame, and remembers the server.
            """)

    @Argument(help: ArgumentHelp("The server, and #ID when it holds several journals.", valueName: "url"))
    var url: String
    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption

    func run() throws {
        let console = Console()
        do {
            // The journal's password: this device's key for the service is sealed under it.
            let secret = try password.readPassword()
            defer { secret.wipe() }
            let report = try JournalClone.clone(url: url, to: journal.path, password: secret, environment: journal.environment)
            console.print(
                "Cloned journal \(report.journalID.prefix(8)) from \(report.server): \(counted(report.frames, "frame")) "
                    + "verified, into \(journal.path). Sign in with its password: giftkeeper --journal \(journal.path)")
        } catch {
            throw failure(error, console: console)
        }
    }
}
