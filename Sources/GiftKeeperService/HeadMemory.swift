import GiftKeeperCrypto
import GiftKeeperFiles
import GiftKeeperJournal
import GiftKeeperSealing
import Glibc

/// Where this machine keeps what it remembers of a journal between sessions (SPEC §5): the
/// head at the end of the last session (an ``AuthenticatedHead`` without a device), one
/// file per journal and place in the state directory, mode 0600 in a 0700 directory,
/// written atomically (temporary file, fsync, rename, fsync of the directory).
enum HeadMemory {
    /// One record per journal *and place*: `<journal id in hex>-<8 bytes of BLAKE2b of the
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

    /// `path` with symlinks and `..` resolved when it exists; as given otherwise.
    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
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
    static func unverifiedRecords(in directory: String, journalPath: String) -> [AuthenticatedHead] {
        let suffix = placeSuffix(journalPath)
        guard let names = try? FileSystem.directoryEntries(directory) else { return [] }
        return names.filter { $0.hasSuffix(suffix) }.compactMap { name in
            PrivateFiles.readSmallFile(directory + "/" + name).flatMap { AuthenticatedHead.parse($0, posted: false) }
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

    /// Reads and authenticates the remembered head of `journalID` at `journalPath`; nil when
    /// none is kept. `dataKey(wrapSequence)` gives the data key of the epoch that wrote it,
    /// if this journal still has that epoch.
    static func read(
        from directory: String, journalID: [UInt8], journalPath: String, dataKey: (UInt64) -> SecureBytes?
    ) -> AuthenticatedHead.Reading? {
        PrivateFiles.readSmallFile(path(in: directory, journalID: journalID, journalPath: journalPath)).map {
            AuthenticatedHead.read($0, journalID: journalID, device: nil, dataKey: dataKey)
        }
    }

    /// Writes `head` atomically; failures are reported to the caller, who treats them as a warning.
    static func write(
        _ head: AuthenticatedHead, to directory: String, journalPath: String, dataKey: SecureBytes
    ) throws(ServiceError) {
        let final = path(in: directory, journalID: head.journalID, journalPath: journalPath)
        let bytes: [UInt8]
        do {
            bytes = try head.encoded(dataKey: dataKey)
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
        do throws(SystemCallError) {
            try PrivateFiles.makeDirectories(directory)
            try PrivateFiles.replace(final, with: bytes)
        } catch {
            throw ServiceError(.fileIO(operation: error.operation, path: final, errno: error.errno))
        }
    }
}
