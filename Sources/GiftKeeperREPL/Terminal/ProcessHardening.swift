import CReadline
import Glibc

/// Process settings that keep secrets out of files other users could read and out of
/// core dumps (SPEC §4): `umask(077)`, `prctl(PR_SET_DUMPABLE, 0)`, `RLIMIT_CORE = 0`; and
/// SIGPIPE and SIGXFSZ ignored, so a closed pipe (`| head -1`) or a file-size limit
/// (`ulimit -f`) is an error a write returns (EPIPE, EFBIG) and the program handles --
/// signed out, keys wiped, nothing acknowledged that is not durable -- never a death.
public enum ProcessHardening {
    /// Applies every setting; each C call's result is checked.
    /// - Throws: ``ProcessHardeningError`` naming the call that failed.
    public static func apply() throws(ProcessHardeningError) {
        // umask cannot fail; it returns the previous mask.
        _ = umask(0o077)

        guard giftkeeper_prctl_set_not_dumpable() == 0 else {
            throw ProcessHardeningError(function: "prctl(PR_SET_DUMPABLE, 0)", errno: errno)
        }

        for ignored in [SIGPIPE, SIGXFSZ] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = SIG_IGN
            sigemptyset(&action.sa_mask)
            guard sigaction(ignored, &action, nil) == 0 else {
                throw ProcessHardeningError(function: "signal(\(ignored == SIGPIPE ? "SIGPIPE" : "SIGXFSZ"), SIG_IGN)", errno: errno)
            }
        }

        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        guard setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore) == 0 else {
            throw ProcessHardeningError(function: "setrlimit(RLIMIT_CORE, 0)", errno: errno)
        }
    }
}

/// A hardening call failed. Data; ``description`` words it.
public struct ProcessHardeningError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C call, e.g. `setrlimit(RLIMIT_CORE, 0)`.
    public let function: String
    public let errno: Int32

    public init(function: String, errno: Int32) {
        self.function = function
        self.errno = errno
    }

    public var description: String {
        "could not protect the process's memory: \(function) failed (\(SystemErrorText.describe(errno)))"
    }
}
