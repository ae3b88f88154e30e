import Foundation
import Glibc
import Synchronization

/// The process's handling of SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGTSTP and SIGCONT.
///
/// One `sigaction` handler does only async-signal-safe work: it restores a saved terminal
/// state if one is registered (``TerminalRestoration``) and writes one byte to a self-pipe.
///
/// - SIGINT, SIGTSTP and SIGCONT while a readline prompt is active, and every SIGWINCH, go
///   to the prompt's pipe; ``ReadlineLineEditor`` polls it and cancels the line, gives the
///   terminal back and stops (Ctrl-Z), prepares it again and redraws (`fg`), or resizes.
/// - SIGTSTP anywhere else stops the process in the handler (``stopProcess()``), the
///   terminal as it was before the program changed it (a password prompt's echo off), and
///   puts the program's state back when continued.
/// - SIGINT while a shell command runs (``CommandInterruption``) asks it to stop.
/// - Anything else is fatal: the byte goes to a watcher thread, which runs
///   ``SecretWiping/wipeAll()`` on an ordinary thread (where locks and `sodium_memzero` are
///   fine), and then calls `_exit(128 + signal)` (130 for SIGINT, 143 for SIGTERM).
enum SignalRouter {
    static let fatalSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Bytes written to the prompt pipe.
    static let interruptByte: UInt8 = 1
    static let resizeByte: UInt8 = 2
    static let suspendByte: UInt8 = 3
    static let continueByte: UInt8 = 4

    // Read by the handler. Set once in `install()` before any handler exists.
    static let promptActive = Atomic<Bool>(false)
    /// An interactive command is running: SIGINT asks it to stop (``CommandInterruption``).
    static let commandActive = Atomic<Bool>(false)
    static let interruptRequested = Atomic<Bool>(false)
    static let promptPipeWrite = Atomic<Int32>(-1)
    static let fatalPipeWrite = Atomic<Int32>(-1)
    static let promptPipeReadEnd = Atomic<Int32>(-1)

    private static let installed = Mutex<Bool>(false)

    /// The read end of the prompt pipe (non-blocking), or -1 before `install()`.
    static var promptPipeRead: Int32 { promptPipeReadEnd.load(ordering: .acquiring) }

    /// Installs the handlers and starts the watcher thread, once per process.
    /// Idempotent and thread-safe; every component that changes the terminal calls it.
    static func install() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            // Touch every global the handler reads, so no lazy initialisation happens in it.
            TerminalRestoration.prepare()
            _ = promptActive.load(ordering: .relaxed)
            _ = commandActive.load(ordering: .relaxed)
            _ = interruptRequested.load(ordering: .relaxed)

            guard let prompt = makePipe(nonBlockingRead: true),
                let fatal = makePipe(nonBlockingRead: false)
            else {
                // Without pipes the default actions stay: the process still dies on a signal.
                return
            }
            promptPipeReadEnd.store(prompt.read, ordering: .releasing)
            promptPipeWrite.store(prompt.write, ordering: .releasing)
            fatalPipeWrite.store(fatal.write, ordering: .releasing)

            let fatalRead = fatal.read
            let watcher = Thread {
                watchFatalSignals(readEnd: fatalRead)
            }
            watcher.name = "giftkeeper-signals"
            watcher.start()

            var action = sigaction()
            action.__sigaction_handler.sa_handler = signalHandler
            sigfillset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            for signal in fatalSignals + [SIGWINCH, SIGTSTP, SIGCONT] {
                _ = sigaction(signal, &action, nil)
            }
            _ = atexit { SecretWiping.wipeAll() }
        }
    }

    /// What the prompt's pipe held: which signals came since it was last drained.
    struct PromptSignals {
        var interrupted = false
        var resized = false
        var suspended = false
        var continued = false
    }

    /// Discards pending prompt bytes; returns which signals they stood for.
    static func drainPromptPipe() -> PromptSignals {
        let fd = promptPipeRead
        var signals = PromptSignals()
        guard fd >= 0 else { return signals }
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 {
                if count < 0 && errno == EINTR { continue }
                break
            }
            for byte in bytes[0..<count] {
                switch byte {
                case interruptByte: signals.interrupted = true
                case resizeByte: signals.resized = true
                case suspendByte: signals.suspended = true
                case continueByte: signals.continued = true
                default: break
                }
            }
        }
        return signals
    }

    /// Stops the process as Ctrl-Z does (SIGTSTP with its default action) and returns once
    /// it is continued (`fg`), with this router's handler in place again. Async-signal-safe:
    /// the handler calls it too.
    static func stopProcess() {
        _ = signal(SIGTSTP, nil)  // SIG_DFL
        var stop = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        // Inside the handler SIGTSTP is blocked: let the raised one through at once.
        _ = sigprocmask(SIG_UNBLOCK, &stop, nil)
        _ = raise(SIGTSTP)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = signalHandler
        sigfillset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        _ = sigaction(SIGTSTP, &action, nil)
    }

    private static func makePipe(nonBlockingRead: Bool) -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        // The handler must never block on a full pipe: the byte is a wake-up, not a count.
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        if nonBlockingRead {
            _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    private static func watchFatalSignals(readEnd: Int32) {
        var signal: UInt8 = 0
        while true {
            let count = Glibc.read(readEnd, &signal, 1)
            if count == 1 { break }
            if count < 0 && errno == EINTR { continue }
            return  // the pipe is gone: nothing more to watch
        }
        // The cursor may sit after a prompt ("Password: "); end that line first.
        if isatty(STDERR_FILENO) == 1 {
            POSIXIO.writeAll(STDERR_FILENO, "\n")
        }
        SecretWiping.wipeAll()
        _exit(128 + Int32(signal))
    }
}

/// Ctrl-C while a shell command runs: the command is asked to stop where that loses
/// nothing (a wait, or before recording a sign-in) instead of the process ending.
public enum CommandInterruption {
    /// Runs `body` with SIGINT turned into a request to cancel (see ``isRequested``).
    /// Outside it, SIGINT ends the process as before (after wiping keys).
    public static func whileRunning<T>(_ body: () throws -> T) rethrows -> T {
        SignalRouter.install()
        SignalRouter.interruptRequested.store(false, ordering: .sequentiallyConsistent)
        SignalRouter.commandActive.store(true, ordering: .sequentiallyConsistent)
        defer {
            SignalRouter.commandActive.store(false, ordering: .sequentiallyConsistent)
            SignalRouter.interruptRequested.store(false, ordering: .sequentiallyConsistent)
        }
        return try body()
    }

    /// Whether Ctrl-C was pressed since the running command started.
    public static var isRequested: Bool {
        SignalRouter.interruptRequested.load(ordering: .acquiring)
    }
}

/// Async-signal-safe: atomics, `tcsetattr` and `write` only. Keeps `errno` intact.
private let signalHandler: @convention(c) (Int32) -> Void = { signal in
    let savedErrno = errno
    defer { errno = savedErrno }
    var byte: UInt8
    let target: Int32
    if signal == SIGWINCH {
        byte = SignalRouter.resizeByte
        target = SignalRouter.promptPipeWrite.load(ordering: .acquiring)
    } else if signal == SIGTSTP || signal == SIGCONT {
        guard SignalRouter.promptActive.load(ordering: .acquiring) else {
            if signal == SIGTSTP { TerminalRestoration.stopFromSignalHandler() }
            return
        }
        byte = signal == SIGTSTP ? SignalRouter.suspendByte : SignalRouter.continueByte
        target = SignalRouter.promptPipeWrite.load(ordering: .acquiring)
    } else if signal == SIGINT && SignalRouter.promptActive.load(ordering: .acquiring) {
        byte = SignalRouter.interruptByte
        target = SignalRouter.promptPipeWrite.load(ordering: .acquiring)
    } else if signal == SIGINT && SignalRouter.commandActive.load(ordering: .acquiring) {
        SignalRouter.interruptRequested.store(true, ordering: .releasing)
        return
    } else {
        TerminalRestoration.restoreFromSignalHandler()
        byte = UInt8(truncatingIfNeeded: signal)
        target = SignalRouter.fatalPipeWrite.load(ordering: .acquiring)
    }
    if target >= 0 {
        _ = Glibc.write(target, &byte, 1)
    }
}

/// The one terminal state to put back if a fatal signal arrives (echo turned off for a
/// password, or readline's raw mode). One slot: the REPL never nests these.
enum TerminalRestoration {
    private static let descriptor = Atomic<Int32>(-1)
    // Written only while `descriptor` is -1; read by the handler only while it is not.
    nonisolated(unsafe) private static let saved: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()

    /// How many ``remember(_:for:)`` calls are not yet matched by ``clear()``. Changes of
    /// the terminal nest (a password prompt inside `passwd`'s hidden-typing span): the
    /// outermost state is the one to put back, and it stays until the outermost `clear`.
    /// Used from the REPL's one thread only; the handler reads `descriptor` and `saved`.
    nonisolated(unsafe) private static var depth = 0

    static func prepare() {
        _ = descriptor.load(ordering: .relaxed)
        _ = saved
    }

    /// Restores `state` on `fd` if a fatal signal arrives before the matching ``clear()``
    /// (unless an outer, earlier state is already remembered: that one is restored).
    static func remember(_ state: termios, for fd: Int32) {
        SignalRouter.install()
        defer { depth += 1 }
        guard depth == 0 else { return }
        descriptor.store(-1, ordering: .sequentiallyConsistent)
        saved.pointee = state
        descriptor.store(fd, ordering: .sequentiallyConsistent)
    }

    static func clear() {
        depth = max(0, depth - 1)
        if depth == 0 {
            descriptor.store(-1, ordering: .sequentiallyConsistent)
        }
    }

    /// Ctrl-Z outside a readline prompt: the terminal goes back to the remembered state
    /// while stopped (echo on again for the shell the user goes back to), and the program's
    /// state (echo off for a password being checked) is put back when continued.
    static func stopFromSignalHandler() {
        let fd = descriptor.load(ordering: .sequentiallyConsistent)
        var current = termios()
        let changed = fd >= 0 && tcgetattr(fd, &current) == 0
        if changed { _ = tcsetattr(fd, TCSANOW, saved) }
        SignalRouter.stopProcess()
        if changed { _ = tcsetattr(fd, TCSADRAIN, &current) }
    }

    static func restoreFromSignalHandler() {
        let fd = descriptor.load(ordering: .sequentiallyConsistent)
        if fd >= 0 {
            _ = tcsetattr(fd, TCSANOW, saved)
        }
    }
}
