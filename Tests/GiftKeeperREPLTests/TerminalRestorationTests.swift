import Glibc
import Testing

@testable import GiftKeeperREPL

/// What a fatal signal puts back on the terminal when changes of it nest (a password prompt
/// inside `passwd`'s hidden-typing span): the outermost state, until the outermost clear.
@Suite struct TerminalRestorationTests {
    /// A new pseudo-terminal: /dev/ptmx, unlocked (TIOCSPTLCK), its number (TIOCGPTN)
    /// naming the terminal side in /dev/pts (posix_openpt is not in Swift's Glibc module;
    /// these two ioctl numbers are the asm-generic ones every Linux port uses).
    private func pseudoTerminal() throws -> (controller: Int32, terminal: Int32) {
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(controller >= 0)
        var unlock: Int32 = 0
        try #require(ioctl(controller, 0x4004_5431, &unlock) == 0)
        var number: UInt32 = 0
        try #require(ioctl(controller, 0x8004_5430, &number) == 0)
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        return (controller, terminal)
    }

    private func echoes(_ fd: Int32) -> Bool {
        var state = termios()
        _ = tcgetattr(fd, &state)
        return state.c_lflag & tcflag_t(ECHO) != 0
    }

    private func setEcho(_ fd: Int32, _ on: Bool) {
        var state = termios()
        _ = tcgetattr(fd, &state)
        if on { state.c_lflag |= tcflag_t(ECHO) } else { state.c_lflag &= ~tcflag_t(ECHO) }
        _ = tcsetattr(fd, TCSANOW, &state)
    }

    @Test func theOutermostStateIsRestoredUntilTheOutermostClear() throws {
        let (controller, terminal) = try pseudoTerminal()
        defer {
            close(terminal)
            close(controller)
        }
        setEcho(terminal, true)
        var original = termios()
        _ = tcgetattr(terminal, &original)

        TerminalRestoration.remember(original, for: terminal)  // outer: echo on
        setEcho(terminal, false)
        var hidden = termios()
        _ = tcgetattr(terminal, &hidden)
        TerminalRestoration.remember(hidden, for: terminal)  // inner: echo off
        TerminalRestoration.clear()  // the inner prompt ends

        // A fatal signal now must put back the outer state: echo on.
        TerminalRestoration.restoreFromSignalHandler()
        #expect(echoes(terminal))

        TerminalRestoration.clear()  // the outer span ends: nothing is remembered any more
        setEcho(terminal, false)
        TerminalRestoration.restoreFromSignalHandler()
        #expect(!echoes(terminal))
    }
}
