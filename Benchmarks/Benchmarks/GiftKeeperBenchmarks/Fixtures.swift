import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService

/// Fixture journals and documents, built programmatically.
///
/// package-benchmark runs every benchmark in a process of its own, so the big fixtures are
/// kept on disk and built once per run: in `$GIFTKEEPER_BENCH_FIXTURES` (the Makefile
/// points it at a fresh temporary directory and removes it afterwards), else in
/// `/tmp/giftkeeper-bench-fixtures-UID`. A fixture is complete once its marker file exists.
enum Fixtures {
    static let password = "correct horse battery staple"
    static let epoch = Timestamp(millisecondsSinceEpoch: 1_795_000_000_000)

    static var directory: String {
        if let set = ProcessInfo.processInfo.environment["GIFTKEEPER_BENCH_FIXTURES"], set.hasPrefix("/") {
            return set
        }
        return "/tmp/giftkeeper-bench-fixtures-\(getuid())"
    }

    /// A fresh private directory for one benchmark's scratch journals.
    static func scratchDirectory(_ name: String) -> String {
        let path = directory + "/scratch-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    static func environment() -> ServiceEnvironment {
        ServiceEnvironment(
            now: { epoch }, sleep: { _ in }, stateDirectory: nil, allowsTestKeyDerivationCost: true)
    }

    static func passwordBytes() -> SecureBytes {
        let bytes = Array(password.utf8)
        // swiftlint:disable:next force_try
        let secret = try! SecureBytes(capacity: bytes.count, count: 0)
        for byte in bytes { _ = secret.append(byte) }
        return secret
    }

    /// The `index`-th present of every fixture (1-based): realistic lengths, some prices,
    /// a few notes, all ASCII (the common case), status `idea` (one event per present).
    static func present(_ index: Int) -> Present {
        let recipients = ["Mum", "Dad", "Grandma Rose", "Uncle Bartholomew", "Aunt Margaret", "Sam", "Alex", "Kim"]
        let titles = ["Wool scarf", "Hardback cookbook", "Noise-cancelling headphones", "Board game", "Tea sampler"]
        let occasions = ["Christmas 2026", "Birthday", "", "Anniversary"]
        return Present(
            id: PresentID(number: UInt64(index))!,
            recipient: recipients[index % recipients.count] + (index % 3 == 0 ? " \(index % 97)" : ""),
            title: titles[index % titles.count] + " #\(index)",
            notes: index % 5 == 0 ? "from the shop on the corner, size M" : "",
            price: index % 4 == 0 ? nil : Money(minorUnits: Int64(100 + index % 9_900)),
            occasion: occasions[index % occasions.count],
            status: .idea,
            createdAt: epoch, updatedAt: epoch)
    }

    /// A `giftkeeper.export.v1` document with presents `first...last`.
    static func document(_ range: ClosedRange<Int>) -> [UInt8] {
        var text = "{\"account\":{\"name\":\"Bench\"},\"format\":\"giftkeeper.export.v1\",\"presents\":["
        text.reserveCapacity(range.count * 230)
        var first = true
        for index in range {
            let present = present(index)
            if !first { text += "," }
            first = false
            text += "{\"createdAt\":\"\(present.createdAt.iso8601)\",\"id\":\"\(present.id)\","
            text += "\"notes\":\"\(present.notes)\",\"occasion\":\"\(present.occasion)\","
            text += "\"price\":" + (present.price.map { "\"\($0)\"" } ?? "null") + ","
            text += "\"recipient\":\"\(present.recipient)\",\"status\":\"idea\",\"title\":\"\(present.title)\","
            text += "\"updatedAt\":\"\(present.updatedAt.iso8601)\"}"
        }
        text += "]}"
        return Array(text.utf8)
    }

    /// A new journal with an account at the test-minimum KDF cost, signed in.
    static func newSignedInService(at path: String) throws -> GiftKeeperService {
        let service = GiftKeeperService(journalPath: path, environment: environment())
        try service.open()
        try service.setup(name: "Bench", password: passwordBytes(), parameters: .testMinimum)
        return service
    }

    /// The path of a journal holding `presents` presents (one `presentAdded` each, plus the
    /// account's own few frames), built on first use by importing documents of 50,000.
    static func journal(presents: Int) throws -> String {
        let path = directory + "/presents-\(presents).journal"
        let marker = path + ".complete"
        if FileManager.default.fileExists(atPath: marker) { return path }
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? FileManager.default.removeItem(atPath: path)
        let service = try newSignedInService(at: path)
        var next = 1
        while next <= presents {
            let last = min(presents, next + 49_999)
            _ = try service.importDocument(document(next...last))
            next = last + 1
        }
        try service.close()
        FileManager.default.createFile(atPath: marker, contents: Data())
        return path
    }
}
