import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperTestSupport

/// Another device of the user's, compromised or buggy: it holds the key and appends events
/// sealed under it without the rules a command obeys (issue 30, finding 5).
enum HostileDevice {
    /// Appends `events` to the journal at `path`, sealed under the data key `password` opens.
    static func append(_ events: [Event], to path: String, password text: String) throws {
        let journal = try Journal.open(at: path, access: .readWrite)
        let sealed = try SealedJournal(store: journal)
        let bytes = Array(text.utf8)
        let password = try SecureBytes(capacity: max(bytes.count, 1), count: 0)
        defer { password.wipe() }
        for byte in bytes { password.append(byte) }
        let keyring = try Keyring.unlock(password: password, wraps: sealed.wraps)
        defer { keyring.wipe() }
        guard let epoch = keyring.newest else { throw TestSupportError("no key epoch") }
        guard case .appended = try sealed.appendSealed(events, epoch: epoch) else {
            throw TestSupportError("another writer came first")
        }
    }

    /// A present added with `title`, `notes` and `store` as given, at a fixed time.
    static func present(_ number: UInt64, recipient: String = "Sam", title: String, notes: String = "", store: String = "")
        throws -> Event
    {
        guard let id = PresentID(number: number) else { throw TestSupportError("bad id \(number)") }
        return Event(
            at: Timestamp(millisecondsSinceEpoch: 1_796_115_600_000),
            .presentAdded(
                id: id, recipient: recipient, title: title, notes: notes, price: nil, occasion: "", url: "", store: store))
    }
}
