import Glibc

/// Keys typed while a password is being checked (seconds of key derivation, and the wait
/// after failed logins) are neither shown nor kept: a password typed again in impatience
/// must not appear on screen, nor run as a command once the check is over.
enum TypeAhead {
    /// Runs `body` with the terminal's echo off, then restores it and drops whatever was
    /// typed meanwhile (`TCSAFLUSH`). Signal keys stay on, so Ctrl-C still cancels. Without
    /// a controlling terminal, `body` simply runs.
    static func discarded<T>(_ body: () throws -> T) rethrows -> T {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return try body() }
        defer { _ = close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return try body() }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        TerminalRestoration.remember(saved, for: fd)
        _ = tcsetattr(fd, TCSANOW, &quiet)
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            TerminalRestoration.clear()
        }
        return try body()
    }
}
