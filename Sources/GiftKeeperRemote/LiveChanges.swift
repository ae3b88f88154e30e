import GiftKeeperFiles
import GiftKeeperWire
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOSSL
import Synchronization

/// A device's WebSocket to the service's live changes (SPEC §12, `GET /v1/live`): a
/// background task keeps it open — reconnecting after 1 s, then 2, 4 … up to 30 s, or at
/// once when the connection signs in afresh — and counts the messages that name this
/// journal (or all), ringing ``ChangeBell``. The store waiting for frames reads with its
/// cursor when the count moved, so while the socket is open an idle device asks the
/// service nothing (the socket's pings aside); while it is not, the store polls as before.
/// A lost message costs latency, never data.
///
/// The device pings once a period (the connection's deadline) and closes a socket whose
/// pong did not come by the next ping, so a link that went silent is noticed (and the store
/// polls again) within two periods. Connecting has no deadline of its own in the WebSocket client past TCP's
/// (10 s): a handshake that stalls leaves the device polling, as with no socket, until it ends.
final class LiveChanges: Sendable {
    private let heard = Atomic<Int>(0)
    private let open = Atomic<Bool>(false)
    /// The head the store holds: a message naming no later one (the device's own append,
    /// heard back) is not counted, and the store does not read for it.
    private let held = Atomic<Int>(-1)

    /// Tells the socket the head the store holds now.
    func hold(_ sequence: UInt64) {
        held.store(Int(clamping: sequence), ordering: .releasing)
    }
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Messages heard for this journal, and (re)connections (after which a read is due).
    var count: Int { heard.load(ordering: .acquiring) }
    /// Whether the socket is open now.
    var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Starts the background task for `journal` (hex) at `url` (`wss://…/v1/live`), signing
    /// the upgrade with the connection's current token, pinging once each `pingPeriod`.
    func start(url: String, journal: String, token: TokenBox, tls: TLSConfiguration?, sniHostname: String?, pingPeriod: Duration) {
        let started = Task.detached { [self] in
            let logger = Logger(label: "giftkeeper.live", factory: { _ in SwiftLogNoOpLogHandler() })
            var delay = Duration.seconds(1)
            while !Task.isCancelled {
                let before = count
                // Not signed in yet (the connection signs in at its first request): wait for
                // it, without backing off.
                guard let bearer = token.value else {
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                }
                let configuration = Self.configuration(token: bearer, sniHostname: sniHostname, pingPeriod: pingPeriod)
                _ = try? await WebSocketClient.connect(
                    url: url, configuration: configuration, tlsConfiguration: tls, logger: logger
                ) { inbound, _, _ in
                    self.open.store(true, ordering: .releasing)
                    self.heard.add(1, ordering: .releasing)  // changes may have come while it was closed
                    for try await message in inbound.messages(maxSize: 1 << 12) {
                        guard case .text(let text) = message, text == "*" || text.hasPrefix(journal + " ") else { continue }
                        if let sequence = Int(text.dropFirst(journal.count + 1)), sequence <= self.held.load(ordering: .acquiring) {
                            continue
                        }
                        self.heard.add(1, ordering: .releasing)
                        ChangeBell.ring()  // a shell waiting at its prompt looks at once
                    }
                }
                self.open.store(false, ordering: .releasing)
                // Opened and then lost: again soon; never opened: back off, unless the
                // connection signed in again meanwhile (a refused token is the usual cause).
                delay = count != before ? .seconds(1) : min(delay * 2, .seconds(30))
                let waitStart = ContinuousClock.now
                while !Task.isCancelled, ContinuousClock.now - waitStart < delay, token.value == bearer {
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        task.withLock { $0 = started }
    }

    private static func configuration(token: String, sniHostname: String?, pingPeriod: Duration) -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.authorization] = "Bearer \(token)"
        configuration.sniHostname = sniHostname
        configuration.autoPing = .enabled(timePeriod: pingPeriod)
        configuration.closeTimeout = pingPeriod
        return configuration
    }

    /// Ends the background task (and closes the socket).
    func stop() {
        task.withLock { $0?.cancel() }
    }
}

/// The bearer token a connection holds, readable from the live-changes task.
final class TokenBox: Sendable {
    private let token = Mutex<String?>(nil)
    var value: String? {
        get { token.withLock { $0 } }
        set { token.withLock { $0 = newValue } }
    }
}
