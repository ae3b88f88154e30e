public import Foundation

/// The sync service's wire format (SPEC §12), shared by `giftkeeper-server` and the
/// device's remote store so the two cannot drift apart.
///
/// Every request and answer body is one of these types as JSON (Foundation's coders);
/// bytes (frames, hashes, keys, signatures) travel as base64 strings, which is
/// `JSONEncoder`'s default for `Data`, readable with `curl`. One answer has a second form:
/// a page of frames comes in binary (``BinaryFramePage``) to a device that asks for it, since
/// a clone reads a whole journal in pages and base64 in JSON took most of its time.
public enum Wire {
    /// What a device signs to prove it holds its key: this context, then the server's
    /// one-time nonce (``Challenge``). The context keeps the signature from meaning
    /// anything anywhere else.
    public static let proofContext = Array("giftkeeper-sync-auth-v1".utf8)

    /// The bytes a device signs for `nonce`.
    public static func proofMessage(nonce: [UInt8]) -> [UInt8] {
        proofContext + [0] + nonce
    }

    /// The most frames one page of a cursor read holds.
    public static let maximumPageFrames = 2_000
    /// The most bytes (of frames, before base64) one page holds; a page holds at least
    /// one frame whatever its size.
    public static let maximumPageBytes = 4 << 20
    /// The largest request body the server takes (an append's frames, in base64).
    public static let maximumRequestBytes = 16 << 20

    /// A journal's id in a path: lower-case hex.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The bytes of lower-case or upper-case hex; nil for anything else.
    public static func unhex(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The paths of the service, all under `/v1`.
public enum Route {
    public static let challenge = "/v1/auth/challenge"
    public static let session = "/v1/auth/session"
    public static let accounts = "/v1/accounts"
    public static let enrolments = "/v1/enrolments"
    public static let redeem = "/v1/enrolments/redeem"
    public static let devices = "/v1/devices"
    public static let journals = "/v1/journals"
    /// The WebSocket of live changes: `<journal id in hex> <head sequence>` per change, `*`
    /// for "read every journal again".
    public static let live = "/v1/live"

    public static func device(_ id: Int64) -> String { "\(devices)/\(id)" }
    public static func journal(_ id: [UInt8]) -> String { "\(journals)/\(Wire.hex(id))" }
    public static func frames(_ id: [UInt8], after sequence: UInt64, limit: Int) -> String {
        "\(journal(id))/frames?after=\(sequence)&limit=\(limit)"
    }
    public static func append(_ id: [UInt8]) -> String { "\(journal(id))/append" }
    public static func heads(_ id: [UInt8]) -> String { "\(journal(id))/heads" }
}

/// A position in a journal's chain: a sequence number and the chain hash there.
public struct WireHead: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var hash: Data

    public init(sequence: UInt64, hash: Data) {
        self.sequence = sequence
        self.hash = hash
    }
}

/// `POST /v1/auth/challenge`: a one-time nonce to sign.
public struct Challenge: Codable, Sendable {
    public var nonce: Data

    public init(nonce: Data) {
        self.nonce = nonce
    }
}

/// A device's proof that it holds the secret key of `publicKey`: its signature of
/// ``Wire/proofMessage(nonce:)`` for a nonce the server gave out and has not taken back.
public struct DeviceProof: Codable, Sendable {
    public var publicKey: Data
    public var nonce: Data
    public var signature: Data

    public init(publicKey: Data, nonce: Data, signature: Data) {
        self.publicKey = publicKey
        self.nonce = nonce
        self.signature = signature
    }
}

/// `POST /v1/accounts`: a new account whose first device is the one proving itself.
/// `POST /v1/enrolments/redeem` carries a ``code`` too: the device joins that code's account.
public struct DeviceSignUp: Codable, Sendable {
    public var proof: DeviceProof
    /// What the device calls itself (its host name), for `device list`.
    public var deviceName: String
    /// The one-time code an enrolled device showed (redeeming only).
    public var code: String?

    public init(proof: DeviceProof, deviceName: String, code: String? = nil) {
        self.proof = proof
        self.deviceName = deviceName
        self.code = code
    }
}

/// A signed-in device's bearer token (`Authorization: Bearer …`), valid for
/// ``expiresInSeconds`` or until the server restarts; a device signs in again on a 401.
public struct SessionToken: Codable, Sendable {
    public var token: String
    public var expiresInSeconds: Int
    /// The device's number within its account.
    public var device: Int64

    public init(token: String, expiresInSeconds: Int, device: Int64) {
        self.token = token
        self.expiresInSeconds = expiresInSeconds
        self.device = device
    }
}

/// `POST /v1/enrolments`: a one-time code that enrols one more device in the account.
public struct EnrolmentCode: Codable, Sendable {
    public var code: String
    public var expiresInSeconds: Int

    public init(code: String, expiresInSeconds: Int) {
        self.code = code
        self.expiresInSeconds = expiresInSeconds
    }
}

/// `GET /v1/devices`: the account's devices.
public struct DeviceList: Codable, Sendable {
    public struct Device: Codable, Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var publicKey: Data
        /// Seconds since 1970 when it was enrolled.
        public var enrolledAt: Int64
        /// Whether this is the device asking.
        public var isCurrent: Bool

        public init(id: Int64, name: String, publicKey: Data, enrolledAt: Int64, isCurrent: Bool) {
            self.id = id
            self.name = name
            self.publicKey = publicKey
            self.enrolledAt = enrolledAt
            self.isCurrent = isCurrent
        }
    }

    public var devices: [Device]

    public init(devices: [Device]) {
        self.devices = devices
    }
}

/// `GET /v1/journals`: the ids of the account's journals, and the server's epoch (as in
/// ``JournalInfo``: a device whose journal the server no longer holds asks it here).
public struct JournalList: Codable, Sendable {
    public var journals: [Data]
    public var epoch: Data?

    public init(journals: [Data], epoch: Data? = nil) {
        self.journals = journals
        self.epoch = epoch
    }
}

/// `POST /v1/journals`: a journal's server copy, empty (a device's first push); 409 when
/// the account has it.
public struct NewJournal: Codable, Sendable {
    /// The clear journal header (its id is the journal's id).
    public var header: Data
    public var journalID: Data
    /// The chain's hash before its first frame (the head of the empty journal).
    public var genesisHash: Data

    public init(header: Data, journalID: Data, genesisHash: Data) {
        self.header = header
        self.journalID = journalID
        self.genesisHash = genesisHash
    }
}

/// `GET /v1/journals/ID`: a journal's clear header and its head, and the server's epoch.
public struct JournalInfo: Codable, Sendable {
    public var header: Data
    public var head: WireHead
    /// The server's epoch (16 random bytes) when it was read: a new one after each restore
    /// of its database from a backup (`giftkeeper-server restored`). Nil from a server
    /// that has none.
    public var epoch: Data?

    public init(header: Data, head: WireHead, epoch: Data? = nil) {
        self.header = header
        self.head = head
        self.epoch = epoch
    }
}

/// `GET /v1/journals/ID/frames?after=N&limit=M`: the frames after sequence N, in order,
/// at most M (and at most ``Wire/maximumPageFrames`` and about ``Wire/maximumPageBytes``),
/// and the journal's head when they were read: a page ending before the head means read on.
/// With the server's epoch, as in ``JournalInfo``.
public struct FramePage: Codable, Sendable {
    public var after: UInt64
    public var frames: [Data]
    public var head: WireHead
    public var epoch: Data?

    public init(after: UInt64, frames: [Data], head: WireHead, epoch: Data? = nil) {
        self.after = after
        self.frames = frames
        self.head = head
        self.epoch = epoch
    }
}

/// A device's head record on a journal: 16 bytes of device id (the device's own, chosen
/// by it) and an authenticated record the server cannot read or forge.
public struct PostedHead: Codable, Sendable, Equatable {
    public var device: Data
    public var record: Data

    public init(device: Data, record: Data) {
        self.device = device
        self.record = record
    }
}

/// `GET`/`PUT /v1/journals/ID/heads`: the devices' posted heads.
public struct PostedHeads: Codable, Sendable {
    public var heads: [PostedHead]

    public init(heads: [PostedHead]) {
        self.heads = heads
    }
}

/// `POST /v1/journals/ID/append`: `frames` appended after `base` only if the journal's
/// head is still `base` (the frames then end at `head`), with the device's head posted in
/// the same transaction.
public struct AppendRequest: Codable, Sendable {
    public var base: WireHead
    public var head: WireHead
    public var frames: [Data]
    public var post: PostedHead?

    public init(base: WireHead, head: WireHead, frames: [Data], post: PostedHead?) {
        self.base = base
        self.head = head
        self.frames = frames
        self.post = post
    }
}

/// The answer to an append: whether it landed, the journal's head (the one that won, on
/// a conflict), when it landed every device's posted head, and the server's epoch.
public struct AppendAnswer: Codable, Sendable {
    public var appended: Bool
    public var head: WireHead
    public var heads: [PostedHead]
    public var epoch: Data?

    public init(appended: Bool, head: WireHead, heads: [PostedHead], epoch: Data? = nil) {
        self.appended = appended
        self.head = head
        self.heads = heads
        self.epoch = epoch
    }
}
