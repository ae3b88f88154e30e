import Glibc
import Synchronization

/// Secret bytes that live in libsodium's guarded memory.
///
/// The buffer comes from `sodium_malloc` (guard pages, `mlock`ed, never swapped where the
/// system allows), is zeroed on ``wipe()`` and freed with `sodium_free` (which zeroes it
/// again) in `deinit`. Keys and passwords only ever live here: they never become a Swift
/// `String`, `Data` or `[UInt8]`, which Swift copies freely and cannot wipe.
///
/// A `SecureBytes` is a reference type so that it is never implicitly copied; share it,
/// don't duplicate it. It is not thread-safe; the program uses each from one task.
public final class SecureBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    /// The number of bytes in use (at most the allocated capacity).
    public private(set) var count: Int
    /// The number of bytes allocated.
    public let capacity: Int

    /// Allocates `capacity` zeroed bytes of guarded memory, `count` of them in use
    /// (clamped to 0…`capacity`; all of them when `count` is nil).
    /// - Throws: ``CryptoError/Code/outOfSecureMemory(bytes:)`` when `sodium_malloc` fails.
    public init(capacity: Int, count: Int? = nil) throws {
        let sodium = try LibSodium.ready()
        precondition(capacity >= 0, "negative capacity")
        // sodium_malloc(0) is legal but returns a pointer we must not write; keep one byte.
        let allocation = max(capacity, 1)
        guard let pointer = sodium.allocate(allocation) else {
            throw CryptoError(.outOfSecureMemory(bytes: allocation))
        }
        sodium.zero(pointer, count: allocation)
        LiveSecrets.insert(pointer, length: allocation)
        self.base = pointer
        self.capacity = capacity
        // Clamp to 0…capacity like fill(_:): a negative count would make every
        // withUnsafeBytes build a buffer of negative length and trap.
        self.count = max(0, min(count ?? capacity, capacity))
    }

    /// Allocates `count` bytes filled from the system CSPRNG (`randombytes_buf`).
    public static func random(count: Int) throws -> SecureBytes {
        let bytes = try SecureBytes(capacity: count)
        if count > 0 {
            LibSodium.readyOrTrap.randomBytes(bytes.base, count: count)
        }
        return bytes
    }

    deinit {
        LiveSecrets.remove(base)
        // sodium_free zeroes the buffer before releasing it.
        LibSodium.readyOrTrap.free(base)
    }

    /// Zeroes every live `SecureBytes` in the process. For the exit path of a fatal signal
    /// (SIGTERM, SIGINT outside a prompt): the process ends right after, so nothing reads
    /// the zeroed buffers as keys again. Waits for a ``whileKeysInUse(_:)`` span to end.
    public static func wipeAllLive() {
        KeyUse.lock.lock()
        defer { KeyUse.lock.unlock() }
        LiveSecrets.wipeAll()
    }

    /// Runs `body` — sealing with keys and writing the result durably — so that
    /// ``wipeAllLive()`` (another thread, on a fatal signal) waits for it to end instead of
    /// zeroing a key midway, which would put a frame sealed under a zeroed key on disk.
    /// Not reentrant: spans must not nest.
    @discardableResult
    public static func whileKeysInUse<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        KeyUse.lock.lock()
        defer { KeyUse.lock.unlock() }
        return try body()
    }

    /// Calls `body` with the bytes in use. The pointer must not escape `body`.
    public func withUnsafeBytes<R>(
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Calls `body` with the bytes in use, writable. The pointer must not escape `body`.
    public func withUnsafeMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Calls `body` with the whole allocated capacity, writable, and then keeps
    /// the count `body` returns as the bytes in use (clamped to the capacity).
    /// Used to read a password into the buffer one byte at a time.
    public func fill(
        _ body: (UnsafeMutableRawBufferPointer) throws -> Int
    ) rethrows {
        let used = try body(UnsafeMutableRawBufferPointer(start: base, count: capacity))
        count = max(0, min(used, capacity))
        if count < capacity {
            LibSodium.readyOrTrap.zero(base + count, count: capacity - count)
        }
    }

    /// A copy of the bytes in use in guarded memory of its own (wiped independently).
    /// - Throws: ``CryptoError/Code/outOfSecureMemory(bytes:)`` when `sodium_malloc` fails.
    public func copy() throws -> SecureBytes {
        let copied = try SecureBytes(capacity: count)
        withUnsafeBytes { bytes in copied.withUnsafeMutableBytes { $0.copyMemory(from: bytes) } }
        return copied
    }

    /// Appends one byte. Returns false (and changes nothing) when the buffer is full.
    @discardableResult
    public func append(_ byte: UInt8) -> Bool {
        guard count < capacity else { return false }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
        return true
    }

    /// Removes the last byte (for backspace while typing a password), zeroing it.
    public func removeLast() {
        guard count > 0 else { return }
        count -= 1
        base.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
    }

    /// Zeroes every allocated byte (`sodium_memzero`) and sets the count to zero.
    public func wipe() {
        LibSodium.readyOrTrap.zero(base, count: max(capacity, 1))
        count = 0
    }

    /// Constant-time equality of contents (`sodium_memcmp`); lengths are not secret.
    public func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        return LibSodium.readyOrTrap.equal(base, other.base, count: count)
    }

    /// True when every byte in use is ASCII (so NFC normalisation is the identity).
    public var isASCII: Bool {
        withUnsafeBytes { buffer in buffer.allSatisfy { $0 < 0x80 } }
    }
}

/// Every live guarded allocation, so a fatal signal can zero them all before exit.
/// A plain process-wide mutex (lock and unlock in separate calls, which `Mutex` does not offer).
private final class ProcessLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

private enum KeyUse {
    static let lock = ProcessLock()
}

private enum LiveSecrets {
    private static let allocations = Mutex<[UInt: Int]>([:])

    static func insert(_ pointer: UnsafeMutableRawPointer, length: Int) {
        allocations.withLock { $0[UInt(bitPattern: pointer)] = length }
    }

    static func remove(_ pointer: UnsafeMutableRawPointer) {
        _ = allocations.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
    }

    static func wipeAll() {
        allocations.withLock { live in
            for (address, length) in live {
                if let pointer = UnsafeMutableRawPointer(bitPattern: address) {
                    LibSodium.readyOrTrap.zero(pointer, count: length)
                }
            }
        }
    }
}
