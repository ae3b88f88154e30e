import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService

/// Any error as a person sees it: one line and the exit code SPEC §2 gives it (0 ok, 1 the
/// journal failed verification, 2 usage, 3 wrong password, 4 journal missing, locked,
/// unreadable or of an unknown version, 5 I/O), or a cancellation (Ctrl-C: 130), which is a
/// note rather than an error. The one place the shell and the executable turn what was
/// thrown into words and a status.
public struct PresentedError: Sendable {
    /// The sentence, for standard error.
    public let sentence: String
    public let exitCode: Int32
    /// Ctrl-C before anything was recorded: said as a note, not as an error.
    public let isCancellation: Bool

    public init(_ error: any Error) {
        isCancellation = Self.isCancellation(error)
        switch error {
        case let error as ServiceError:
            (sentence, exitCode) = (error.sentence, error.exitCode)
        case let error as JournalError:
            (sentence, exitCode) = (error.sentence, error.exitCode)
        case let error as DomainError:
            (sentence, exitCode) = (error.sentence, 2)
        case let error as PasswordInputError:
            (sentence, exitCode) = (error.description, error.code == .interrupted ? 130 : 2)
        case let error as REPLError:
            (sentence, exitCode) = (error.description, error.exitCode)
        case HouseholdSessionError.domain(let error):
            (sentence, exitCode) = (error.sentence, 2)
        case let error as HouseholdSessionError:
            (sentence, exitCode) = HouseholdWords.refusal(error)
        default:
            (sentence, exitCode) = ("\(error)", 5)
        }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        if let error = error as? ServiceError, case .cancelled = error.code { return true }
        if let error = error as? PasswordInputError, error.code == .interrupted { return true }
        return false
    }
}
