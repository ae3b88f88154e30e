import Glibc
import Synchronization

/// The process's one "something changed elsewhere" bell: a pipe that a background task
/// rings (a sync service's live socket heard that the journal moved) and whose read end the
/// shell's prompt polls beside standard input, so a change shows at once instead of at the
/// prompt's next look (SPEC §12: live). A ring is a hint to look, never data: the look reads
/// with its cursor, and a ring that nobody hears costs nothing.
public enum ChangeBell {
    /// The pipe's read and write ends (both non-blocking, closed on exec); -1 until made, or
    /// when it could not be.
    private static let ends = Mutex<(read: Int32, write: Int32)?>(nil)

    private static var pipeEnds: (read: Int32, write: Int32) {
        ends.withLock { ends in
            if let ends { return ends }
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {
                for fd in fds {
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                }
            }
            ends = (fds[0], fds[1])
            return (fds[0], fds[1])
        }
    }

    /// The descriptor to `poll` for reading (-1 when the pipe could not be made, which
    /// `poll` ignores: the prompt then looks on its timer only).
    public static var descriptor: Int32 { pipeEnds.read }

    /// Wakes whoever polls ``descriptor`` (a full pipe is rung already).
    public static func ring() {
        let descriptor = pipeEnds.write
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }

    /// Takes the rings heard so far, so the next `poll` waits for a new one.
    public static func silence() {
        let descriptor = pipeEnds.read
        guard descriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }
}
