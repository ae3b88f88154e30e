import ArgumentParser
import GiftKeeperService

/// `sync`: brings the journal and its server's copy level (SPEC §12).
struct SyncCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send this device's changes to the journal's server and take in other devices'.",
        usage: "sync [--restore-server]",
        discussion: """
            The server is --remote URL or $GIFTKEEPER_REMOTE, remembered for the journal once used. \
            The shell also syncs on sign-in, after each change, and while it waits at the prompt.
            """)

    @Flag(help: "The server holds fewer frames than this device saw there (restored from a backup): send them back.")
    var restoreServer = false

    /// `giftkeeper sync` is a subcommand of its own (it signs in, then syncs).
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        // This device's key for the service opens only with the keys of a signed-in session.
        guard shell.service.phase == .signedIn else { throw ServiceError(.notSignedIn) }
        let report = try shell.service.sync(restoringServer: restoreServer)
        for line in SyncWords.told(report) { shell.console.print(line) }
        shell.console.print(SyncWords.report(report))
    }
}
