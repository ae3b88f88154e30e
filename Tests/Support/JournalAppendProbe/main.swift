// journal-append-probe PATH COUNT [--max-file-size BYTES]
//
// Test support for GiftKeeperJournalTests. Opens the journal at PATH read-write (creating
// it if missing), then appends COUNT frames one at a time, printing each sequence number
// on its own line and flushing stdout only after `append` returned, that is after fsync:
// every number printed is an acknowledged frame, so a test may SIGKILL this process at
// any moment and then check that each printed frame survived.
//
// Payload of frame N (kind 1): N as 8 bytes little-endian, then N % 61 filler bytes
// (byte i = UInt8(truncatingIfNeeded: N &* 131 &+ i)). The tests recompute it.
//
// --max-file-size sets RLIMIT_FSIZE (SIGXFSZ ignored), so a write past it fails with
// EFBIG: the failed-write path, without filling a disk.
//
// Several probes may append to one journal at once: each builds its frame on the head it
// has seen and, when another appended first, on the new head.
//
// Exit codes: 0 done; the JournalError's exit code on failure (4 when in use), with one
// line on stderr; 2 on bad usage.
import GiftKeeperJournal
import Glibc

func fail(_ message: String, code: Int32) -> Never {
    let line = Array("journal-append-probe: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

func payload(for sequence: UInt64) -> [UInt8] {
    var bytes = (0..<8).map { UInt8(truncatingIfNeeded: sequence >> (8 * UInt64($0))) }
    bytes += (0..<Int(sequence % 61)).map { UInt8(truncatingIfNeeded: sequence &* 131 &+ UInt64($0)) }
    return bytes
}

let arguments = CommandLine.arguments
guard arguments.count == 3 || (arguments.count == 5 && arguments[3] == "--max-file-size"),
    let count = Int(arguments[2]), count >= 0
else {
    fail("usage: journal-append-probe PATH COUNT [--max-file-size BYTES]", code: 2)
}
let path = arguments[1]

if arguments.count == 5 {
    guard let limit = UInt64(arguments[4]) else { fail("bad --max-file-size", code: 2) }
    signal(SIGXFSZ, SIG_IGN)
    var rlimit = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    if setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &rlimit) != 0 {
        fail("setrlimit failed (errno \(errno))", code: 5)
    }
}

/// Opens the journal read-write, creating it when it does not exist yet.
func openOrCreate(_ path: String) throws(JournalError) -> Journal {
    do {
        return try Journal.open(at: path, access: .readWrite)
    } catch {
        guard error.code == .notFound else { throw error }
        return try Journal.create(at: path)
    }
}

/// Appends `count` frames one by one, acknowledging each on stdout after its fsync. When
/// another process appended first (a conflict: its frames are taken in), the frame is built
/// again on the new head, as the service decides again.
func run(path: String, count: Int) throws {
    let journal = try openOrCreate(path)
    for _ in 0..<count {
        while true {
            var batch = journal.makeBatch()
            try batch.add(kind: .dataSealed, payload: payload(for: batch.nextSequence))
            if case .appended(let head) = try journal.append(batch) {
                print(head.sequence)
                break
            }
        }
        fflush(nil)  // all output streams: stdout is the only one written
    }
}

do {
    try run(path: path, count: count)
} catch let error as JournalError {
    fail(error.code == .inUse ? "journal in use" : "\(error.code)", code: error.exitCode)
} catch {
    fail("\(error)", code: 5)
}
