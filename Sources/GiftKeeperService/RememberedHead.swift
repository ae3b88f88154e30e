import GiftKeeperCrypto
import GiftKeeperFiles
import GiftKeeperJournal
import Glibc

/// What this machine remembers of a journal between sessions, to detect a rollback
/// (SPEC §5): the journal id, the last sequence number and the chain hash at the end of
/// the last session, authenticated with a subkey of the data key.
///
/// Stored in `STATE_DIR/<journal id in hex>-<place>.head` (see ``path(in:journalID:journalPath:)``),
/// mode 0600 in a 0700 directory,
/// written atomically (temporary file, fsync, rename, fsync of the directory).
/// Layout (104 bytes): magic `GKHEAD01` ‖ journal id (16) ‖ last sequence (u64 LE) ‖
/// head hash (32) ‖ key-epoch wrap sequence (u64 LE) ‖ BLAKE2b-256 MAC of the previous 72
/// bytes under `crypto_kdf` subkey 1, context `GKhead01`, of that epoch's data key.
struct RememberedHead: Equatable {
    static let magic: [UInt8] = Array("GKHEAD01".utf8)
    static let length = 8 + 16 + 8 + 32 + 8 + 32

    let journalID: [UInt8]
    let lastSequence: UInt64
    let headHash: [UInt8]
    let epochWrapSequence: UInt64

    /// One record per journal *and place*: `<journal id>-<8 bytes of BLAKE2b of the
    /// journal's real path>.head`. The journal put back at its place in an older state is
    /// a rollback; a copy elsewhere (a backup, a sample tried out in /tmp) is another
    /// journal to this machine, so checking or using it never trips over the original's record.
    static func path(in directory: String, journalID: [UInt8], journalPath: String) -> String {
        directory + "/" + hexString(journalID) + placeSuffix(journalPath)
    }

    /// The record of the same journal and place with another extension (`.remote`).
    static func path(in directory: String, journalID: [UInt8], journalPath: String, extension: String) -> String {
        String(path(in: directory, journalID: journalID, journalPath: journalPath).dropLast("head".count)) + `extension`
    }

    /// `-<8 bytes of BLAKE2b of the journal's real path>.head`: what every record of one place ends with.
    private static func placeSuffix(_ journalPath: String) -> String {
        let place = Blake2b.hash(Array(canonicalPath(journalPath).utf8)).prefix(8)
        return "-" + hexString(place) + ".head"
    }

    /// Whether something that is not a readable record stands where this journal's record
    /// goes (a directory, an unreadable file), or the state directory is not a directory.
    static func somethingElseIsThere(in directory: String, journalID: [UInt8], journalPath: String) -> Bool {
        var info = stat()
        if lstat(directory, &info) == 0, info.st_mode & S_IFMT != S_IFDIR { return true }
        return lstat(path(in: directory, journalID: journalID, journalPath: journalPath), &info) == 0
    }

    /// Every record kept for `journalPath`, whatever its journal id, parsed but NOT
    /// authenticated (no key yet): evidence to compare with the journal before unlocking.
    static func unverifiedRecords(in directory: String, journalPath: String) -> [RememberedHead] {
        let suffix = placeSuffix(journalPath)
        guard let names = try? FileSystem.directoryEntries(directory) else { return [] }
        return names.filter { $0.hasSuffix(suffix) }.compactMap { name in
            PrivateFiles.readSmallFile(directory + "/" + name).flatMap(parse)
        }
    }

    /// Removes the records kept for `journalPath` of journals other than `journalID`: this
    /// machine itself made or accepted that journal there.
    static func forgetOthers(in directory: String, journalID: [UInt8], journalPath: String) {
        let suffix = placeSuffix(journalPath)
        let keep = hexString(journalID) + suffix
        for name in (try? FileSystem.directoryEntries(directory)) ?? [] where name.hasSuffix(suffix) && name != keep {
            try? FileSystem.unlink(directory + "/" + name)
        }
    }

    /// The fields of a record, unauthenticated; nil when it is not one.
    static func parse(_ bytes: [UInt8]) -> RememberedHead? {
        var reader = ByteReader(bytes)
        guard bytes.count == length, reader.read(8) == magic,
            let id = reader.read(16),
            let sequence = reader.readLittleEndian(UInt64.self),
            let hash = reader.read(32),
            let epoch = reader.readLittleEndian(UInt64.self)
        else { return nil }
        return RememberedHead(journalID: id, lastSequence: sequence, headHash: hash, epochWrapSequence: epoch)
    }

    /// `path` with symlinks and `..` resolved when it exists; as given otherwise.
    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private var body: [UInt8] {
        var out = Self.magic
        out += journalID
        out.appendLittleEndian(lastSequence)
        out += headHash
        out.appendLittleEndian(epochWrapSequence)
        return out
    }

    private static func macKey(_ dataKey: SecureBytes) throws -> SecureBytes {
        try SubkeyDerivation.derive(from: dataKey, id: 1, context: "GKhead01")
    }

    func encoded(dataKey: SecureBytes) throws -> [UInt8] {
        let key = try Self.macKey(dataKey)
        defer { key.wipe() }
        return body + (try Blake2b.mac(body, key: key))
    }

    enum ReadResult: Equatable {
        case none
        /// Present but malformed, or its MAC does not verify.
        case unverified
        /// Well-formed, but this journal no longer has the key epoch that authenticated it.
        case keyMissing(RememberedHead)
        case remembered(RememberedHead)
    }

    /// Reads and authenticates the remembered head. `dataKey(wrapSequence)` gives the data
    /// key of the epoch that wrote it, if this journal still has that epoch.
    static func read(
        from directory: String, journalID: [UInt8], journalPath: String, dataKey: (UInt64) -> SecureBytes?
    ) -> ReadResult {
        guard let bytes = PrivateFiles.readSmallFile(path(in: directory, journalID: journalID, journalPath: journalPath)) else {
            return .none
        }
        guard let head = parse(bytes), head.journalID == journalID else { return .unverified }
        let mac = Array(bytes.suffix(32))
        guard let key = dataKey(head.epochWrapSequence) else { return .keyMissing(head) }
        guard let expected = try? head.encoded(dataKey: key),
            constantTimeEqual(Array(expected.suffix(32)), mac)
        else { return .unverified }
        return .remembered(head)
    }

    /// Writes atomically; failures are reported to the caller, who treats them as a warning.
    func write(to directory: String, journalPath: String, dataKey: SecureBytes) throws {
        let bytes = try encoded(dataKey: dataKey)
        let final = Self.path(in: directory, journalID: journalID, journalPath: journalPath)
        do throws(SystemCallError) {
            try PrivateFiles.makeDirectories(directory)
            try PrivateFiles.replace(final, with: bytes)
        } catch {
            throw ServiceError(.fileIO(operation: error.operation, path: final, errno: error.errno))
        }
    }
}
