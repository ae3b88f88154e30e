import Foundation
import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import Glibc
import OrderedCollections
import Testing

@testable import GiftKeeperSealing

// MARK: - Injected clock and sleep

/// A clock that advances exactly one second per call from a fixed start (2026-12-01T09:00:00Z),
/// so every event time, and so every export, is deterministic.
final class CounterClock: @unchecked Sendable {
    static let start: Int64 = 1_796_115_600_000
    private let lock = NSLock()
    private var next: Int64

    init(startMilliseconds: Int64 = CounterClock.start) {
        next = startMilliseconds
    }

    func now() -> Timestamp {
        lock.lock()
        defer { lock.unlock() }
        let value = next
        next += 1000
        return Timestamp(millisecondsSinceEpoch: value)
    }
}

/// Records the delays the service asks to sleep instead of sleeping.
/// The waits before password checks, as ``GiftKeeperService/onWaiting`` counts them down:
/// `totals` is each wait's length, `ticks` every call (…, 2, 1, 0).
final class WaitLog {
    private(set) var ticks: [Int] = []

    func tick(_ secondsLeft: Int) { ticks.append(secondsLeft) }

    var totals: [Int] {
        var totals: [Int] = []
        var previous = 0
        for tick in ticks {
            if previous == 0, tick > 0 { totals.append(tick) }
            previous = tick
        }
        return totals
    }

    func removeAll() { ticks.removeAll() }
}

final class SleepRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int] = []

    func record(_ seconds: Int) {
        lock.lock()
        recorded.append(seconds)
        lock.unlock()
    }

    var delays: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func removeAll() {
        lock.lock()
        recorded.removeAll()
        lock.unlock()
    }
}

/// Collects the login notifications of every service made by a sandbox.
final class NotificationLog {
    var items: [LoginNotification] = []
}

// MARK: - Passwords

/// A password in guarded memory, built byte by byte from a test literal.
func password(_ text: String) throws -> SecureBytes {
    let bytes = Array(text.utf8)
    let secret = try SecureBytes(capacity: max(bytes.count, 1), count: 0)
    for byte in bytes { secret.append(byte) }
    return secret
}

// MARK: - A temporary directory per test

/// One test's world: a fresh mkdtemp directory, the journal in a subdirectory, a state
/// directory for the rollback memory, and the injected clock, sleep and notification log.
final class Sandbox {
    private let directory: TemporaryDirectory
    var root: String { directory.path }
    let journalDirectory: String
    let journalPath: String
    let stateDirectory: String
    let clock: CounterClock
    let sleeps = SleepRecorder()
    let waits = WaitLog()
    let notifications = NotificationLog()

    init(clock: CounterClock = CounterClock()) throws {
        directory = try TemporaryDirectory(prefix: "giftkeeper-service")
        journalDirectory = directory.file("data")
        journalPath = journalDirectory + "/gifts.journal"
        stateDirectory = directory.file("state")
        self.clock = clock
    }

    /// The environment: counter clock, recorded sleeps, this sandbox's state directory,
    /// and the test-only permission to use ``KDFParameters/testMinimum``.
    func environment(stateDirectory: String?? = .none) -> ServiceEnvironment {
        let clock = self.clock
        let sleeps = self.sleeps
        let directory: String? = stateDirectory ?? self.stateDirectory
        return ServiceEnvironment(
            now: { clock.now() }, sleep: { sleeps.record($0) },
            stateDirectory: directory, allowsTestKeyDerivationCost: true)
    }

    /// A new service on this sandbox's journal, its notifications going to ``notifications``.
    func service(path: String? = nil, stateDirectory: String?? = .none) -> GiftKeeperService {
        let service = GiftKeeperService(journalPath: path ?? journalPath, environment: environment(stateDirectory: stateDirectory))
        let log = notifications
        service.onNotification = { log.items.append($0) }
        let waits = self.waits
        service.onWaiting = { waits.tick($0) }
        return service
    }

    /// Opens a new journal and sets up an account at the test-minimum cost.
    func setUp(
        name: String = "Alice", password secret: String = "correct horse", path: String? = nil,
        stateDirectory: String?? = .none
    ) throws -> GiftKeeperService {
        let service = service(path: path, stateDirectory: stateDirectory)
        try service.open()
        try service.setup(name: name, password: password(secret), parameters: .testMinimum)
        return service
    }

    /// A new service on an existing journal, opened and signed in.
    func signIn(
        password secret: String = "correct horse", path: String? = nil,
        stateDirectory: String?? = .none
    ) throws -> GiftKeeperService {
        let service = service(path: path, stateDirectory: stateDirectory)
        try service.open()
        try service.login(password: password(secret))
        return service
    }

    func journalBytes(_ path: String? = nil) throws -> [UInt8] {
        try readBytes(path ?? journalPath)
    }

    /// Replaces the journal's bytes in place (mode 0600 kept).
    func writeJournal(_ bytes: [UInt8], to path: String? = nil) throws {
        try writeBytes(bytes, to: path ?? journalPath)
    }

    /// A journal with a copy taken along the way, for rollback tests: frames 1 wrap,
    /// 2 accountCreated, 3 loginSucceeded, 4 p1 (the copy is taken here), 5 p2, 6 p3,
    /// 7 signedOut; the state directory remembers sequence 7. Returns the copy.
    func journalWithOlderCopy() throws -> [UInt8] {
        let service = try setUp()
        try service.perform(.addPresent(recipient: "Mum", title: "Scarf"))
        let copy = try journalBytes()
        try service.perform(.addPresent(recipient: "Dad", title: "Clock"))
        try service.perform(.addPresent(recipient: "Sam", title: "Kite"))
        try service.close()
        return copy
    }

    /// The remembered-head files in the state directory.
    func headFiles() throws -> [String] {
        guard FileManager.default.fileExists(atPath: stateDirectory) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: stateDirectory)
            .filter { $0.hasSuffix(".head") }
            .map { stateDirectory + "/" + $0 }
    }
}

// MARK: - Errors

/// Runs `body`, returning the ``ServiceError`` it throws (nil when it throws nothing).
func serviceError(_ body: () throws -> Void) -> ServiceError? {
    do {
        try body()
        return nil
    } catch let error as ServiceError {
        return error
    } catch {
        Issue.record("expected a ServiceError, got \(error)")
        return nil
    }
}

extension ServiceError {
    var domainError: DomainError? {
        if case .domain(let error) = code { return error }
        return nil
    }

    var journalErrorCode: JournalError.Code? {
        if case .journal(let error) = code { return error.code }
        return nil
    }

    var isNotSignedIn: Bool {
        if case .notSignedIn = code { return true }
        return false
    }

    /// `recorded` of a wrong-password error; nil for any other error.
    var wrongPasswordRecorded: Bool? {
        if case .wrongPassword(let recorded) = code { return recorded }
        return nil
    }

    var tampered: (sequence: UInt64, tampering: Tampering)? {
        if case .tampered(let sequence, let tampering) = code { return (sequence, tampering) }
        return nil
    }

    var importRejection: (location: String, reason: ImportRejection)? {
        if case .importRejected(let location, let reason) = code { return (location, reason) }
        return nil
    }
}

// MARK: - Raw journal bytes

/// A test-only reading of the v1 file format (docs/architecture.md, JournalFormat.swift):
/// a 60-byte header ("GIFTKEEP", u16 LE version, u16 flags, 16-byte id, BLAKE2b-256 of the
/// first 28 bytes) and frames of length u32 LE ‖ sequence u64 LE ‖ kind u8 ‖ 8-byte header
/// check ‖ payload ‖ 32-byte hash, both checks keyed by the previous frame's hash.
///
/// ``encoded()`` recomputes the header hash and the whole chain, as a forger with write
/// access (and no key) can: the keyless `verify` then passes, and only the AEAD catches it.
struct RawJournal {
    struct Frame: Equatable {
        var sequence: UInt64
        var kind: UInt8
        var payload: [UInt8]
    }

    static let headerSize = 60
    static let frameOverhead = 53

    var header: [UInt8]
    var frames: [Frame]

    init(_ bytes: [UInt8]) throws {
        guard bytes.count >= Self.headerSize else { throw TestSupportError("journal shorter than its header") }
        header = Array(bytes[0..<Self.headerSize])
        frames = []
        var offset = Self.headerSize
        while offset < bytes.count {
            guard bytes.count - offset >= Self.frameOverhead else { throw TestSupportError("torn frame at \(offset)") }
            let length = Int(Self.readLittleEndian(UInt32.self, bytes, at: offset))
            let sequence = Self.readLittleEndian(UInt64.self, bytes, at: offset + 4)
            let kind = bytes[offset + 12]
            guard bytes.count - offset >= Self.frameOverhead + length else { throw TestSupportError("torn frame at \(offset)") }
            frames.append(Frame(sequence: sequence, kind: kind, payload: Array(bytes[offset + 21..<offset + 21 + length])))
            offset += Self.frameOverhead + length
        }
    }

    var journalID: [UInt8] { Array(header[12..<28]) }

    var version: UInt16 {
        get { UInt16(header[8]) | UInt16(header[9]) << 8 }
        set {
            header[8] = UInt8(newValue & 0xff)
            header[9] = UInt8(newValue >> 8)
        }
    }

    /// The frame with sequence number `sequence` (1-based), by index.
    subscript(sequence sequence: UInt64) -> Frame {
        get { frames[Int(sequence) - 1] }
        set { frames[Int(sequence) - 1] = newValue }
    }

    /// Header and frames with the header hash and the whole chain recomputed.
    func encoded() -> [UInt8] {
        var out = Array(header[0..<28])
        out += Blake2b.hash(out)
        var previous = Array(out[28..<60])
        for frame in frames {
            var bytes: [UInt8] = []
            bytes.appendLittleEndian(UInt32(frame.payload.count))
            bytes.appendLittleEndian(frame.sequence)
            bytes.append(frame.kind)
            bytes += Blake2b.hash(bytes, key: previous).prefix(8)
            bytes += frame.payload
            let hash = Blake2b.hash(bytes, key: previous)
            bytes += hash
            out += bytes
            previous = hash
        }
        return out
    }

    /// The hash of the last frame (the genesis hash when there is none).
    var headHash: [UInt8] {
        let bytes = encoded()
        return Array(bytes.suffix(32))
    }

    private static func readLittleEndian<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var value = T.zero
        for index in 0..<MemoryLayout<T>.size {
            value |= T(bytes[offset + index]) << (8 * index)
        }
        return value
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

// MARK: - Golden files

/// The committed golden files: the journals in `journal/golden/` (the one copy, which the
/// fuzz seeds and the README's "try it" read too) and the export documents in this
/// target's `Golden/`, read from the source tree.
enum Golden {
    /// Set GIFTKEEPER_RECORD_GOLDEN=1 to (re-)record the golden files on purpose.
    static var isRecording: Bool {
        ProcessInfo.processInfo.environment["GIFTKEEPER_RECORD_GOLDEN"] == "1"
    }

    /// Where the golden file `name` is kept: a journal in `journal/golden/`, any other file
    /// in `Tests/GiftKeeperServiceTests/Golden/`.
    static func path(_ name: String) -> String {
        name.hasSuffix(".journal")
            ? repositoryRoot + "/journal/golden/" + name
            : repositoryRoot + "/Tests/GiftKeeperServiceTests/Golden/" + name
    }

    /// A sandbox whose journal is the committed golden journal `name` (written 0600 into a
    /// new 0700 directory: git keeps no mode, and a journal refuses 0644); its bytes.
    static func sandbox(with name: String) throws -> (Sandbox, [UInt8]) {
        let sandbox = try Sandbox()
        guard mkdir(sandbox.journalDirectory, 0o700) == 0 else { throw TestSupportError("cannot make the journal directory") }
        let golden = try bytes(name)
        try writeBytes(golden, to: sandbox.journalPath)
        return (sandbox, golden)
    }

    /// The bytes of a committed golden file.
    static func bytes(_ name: String) throws -> [UInt8] {
        guard let bytes = fileBytes(path(name)) else {
            throw TestSupportError("golden file \(path(name)) is missing; record it with GIFTKEEPER_RECORD_GOLDEN=1")
        }
        return bytes
    }

    /// Writes a golden file into the source tree (recording only).
    static func record(_ bytes: [UInt8], as name: String) throws {
        try writeBytes(bytes, to: path(name))
    }
}

/// Parses an export document's presents, for comparisons that ignore some fields.
func exportedPresents(_ bytes: [UInt8], dropping keys: Set<String> = []) throws -> [[String: String]] {
    guard let root = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
        let presents = root["presents"] as? [[String: Any]]
    else { throw TestSupportError("not an export document") }
    return presents.map { present in
        var out: [String: String] = [:]
        for (key, value) in present where !keys.contains(key) {
            out[key] = value is NSNull ? "null" : "\(value)"
        }
        return out
    }
}

/// Collects an export's chunks (checking each is at most ``ExportDocument/chunkSize``)
/// and whether `finish()` was called after the last one.
struct CollectedExport: ExportWriting {
    var bytes: [UInt8] = []
    var chunks = 0
    var finished = false

    mutating func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError) {
        #expect(!finished && !chunk.isEmpty && chunk.count <= ExportDocument.chunkSize)
        bytes += chunk
        chunks += 1
    }

    mutating func finish() throws(ServiceError) {
        #expect(!finished)
        finished = true
    }
}

/// The export document's bytes (``GiftKeeperService/export(to:)`` hands them to a writer in chunks).
func exportBytes(_ service: GiftKeeperService) throws -> [UInt8] {
    var collected = CollectedExport()
    try service.export(to: &collected)
    #expect(collected.finished)
    return collected.bytes
}

extension ImportRejection {
    /// The JSON parser's account of a document that is not JSON; nil for any other rejection.
    var notJSONDetail: String? {
        if case .notJSON(let detail) = self { return detail }
        return nil
    }
}

extension GiftKeeperService {
    /// An export document's bytes checked, then imported (what `import FILE` does in two
    /// steps: ``CheckedImportDocument/checking(_:)`` before the journal, the import after).
    func importDocument(_ bytes: [UInt8]) throws(ServiceError) -> ImportSummary {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        return try importDocument(CheckedImportDocument.checking(bytes))
    }
}
