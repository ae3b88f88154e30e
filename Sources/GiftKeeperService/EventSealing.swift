import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import Glibc

/// Seals events into frame payloads and opens them again: the one place that knows
/// which key and which additional data each frame kind uses.
enum EventSealing {
    /// Kind 1: nonce ‖ XChaCha20-Poly1305(EventCodec bytes) ‖ tag under the epoch's data key,
    /// AD = binding(event).
    static func sealed(_ event: Event, dataKey: SecureBytes, binding: FrameBinding) throws -> [UInt8] {
        try AEAD.seal(EventCodec.encode(event), key: dataKey, additionalData: binding.bytes(for: .event))
    }

    /// Kind 2: crypto_box_seal(binding(failedLoginRecord) ‖ EventCodec bytes) to the
    /// epoch's public key. A sealed box has no additional data, so the binding travels
    /// inside and is compared on opening.
    static func sealedToPublicKey(_ event: Event, publicKey: [UInt8], binding: FrameBinding) throws -> [UInt8] {
        try SealedBox.seal(binding.bytes(for: .failedLoginRecord) + EventCodec.encode(event), to: publicKey)
    }

    enum OpenFailure: Error {
        case doesNotAuthenticate(String)
        case undecodable(EventDecodingError)
    }

    static func open(
        _ frame: FrameView, binding: FrameBinding, epoch: Keyring.Epoch
    ) throws(OpenFailure) -> Event {
        let plaintext: [UInt8]
        switch frame.kind {
        case .dataSealed:
            do {
                plaintext = try AEAD.open(frame.payload, key: epoch.dataKey, additionalData: binding.bytes(for: .event))
            } catch {
                throw .doesNotAuthenticate("event does not authenticate under its data key")
            }
        case .publicSealed:
            let opened: [UInt8]
            do {
                opened = try SealedBox.open(frame.payload, with: epoch.boxKeyPair)
            } catch {
                throw .doesNotAuthenticate("failed-login record does not open")
            }
            let expected = binding.bytes(for: .failedLoginRecord)
            guard opened.count >= expected.count, constantTimeEqual(Array(opened[..<expected.count]), expected) else {
                throw .doesNotAuthenticate("failed-login record belongs elsewhere (moved or spliced)")
            }
            plaintext = Array(opened[expected.count...])
        case .keyWrap:
            throw .doesNotAuthenticate("a key wrap is not an event")
        }
        let event: Event
        do {
            event = try EventCodec.decode(plaintext)
        } catch {
            throw .undecodable(error)
        }
        if frame.kind == .publicSealed, event.type != .loginFailed {
            throw .doesNotAuthenticate("only failed logins may be sealed to the public key")
        }
        return event
    }
}

/// Opens the kind-1 frames of a replay without allocating per frame.
///
/// One additional-data buffer whose fixed part is written once, and one plaintext buffer
/// that grows to the largest event seen; each event is decoded by ``EventCodec`` straight
/// from it. The plaintext buffer is zeroed when the opener goes away. One per replay.
final class EventOpener {
    private let additionalData: EventAdditionalData
    private var plaintext: UnsafeMutableRawBufferPointer
    #if DEBUG
        /// The journal's binding, to check the in-place bytes against in debug builds.
        private let binding: (UInt64, FrameKind, [UInt8]) -> FrameBinding
    #endif

    init(formatVersion: UInt16, journalID: [UInt8], binding: @escaping (UInt64, FrameKind, [UInt8]) -> FrameBinding) {
        additionalData = EventAdditionalData(formatVersion: formatVersion, journalID: journalID)
        plaintext = .allocate(byteCount: 4096, alignment: 16)
        #if DEBUG
            self.binding = binding
        #endif
    }

    deinit {
        if let base = plaintext.baseAddress {
            memset(base, 0, plaintext.count)
        }
        plaintext.deallocate()
    }

    /// Authenticates a kind-1 frame under `dataKey` with its binding as additional data and
    /// decodes its event; the same checks and failures as ``EventSealing/open(_:binding:epoch:)``.
    func open(_ frame: FrameView, dataKey: SecureBytes) throws(EventSealing.OpenFailure) -> Event {
        additionalData.update(sequence: frame.sequence, kind: frame.kind, previousHash: frame.previousHash)
        #if DEBUG
            assert(Array(additionalData.bytes) == binding(frame.sequence, frame.kind, Array(frame.previousHash)).bytes(for: .event))
        #endif
        let messageLength = frame.payload.count - AEAD.nonceLength - AEAD.tagLength
        guard messageLength >= 0 else {
            throw .doesNotAuthenticate("event does not authenticate under its data key")
        }
        if messageLength > plaintext.count {
            if let base = plaintext.baseAddress {
                memset(base, 0, plaintext.count)
            }
            plaintext.deallocate()
            plaintext = .allocate(byteCount: max(messageLength, 2 * plaintext.count), alignment: 16)
        }
        let output = UnsafeMutableRawBufferPointer(rebasing: plaintext[0..<messageLength])
        do {
            try AEAD.open(
                frame.payload, key: dataKey, additionalData: UnsafeRawBufferPointer(additionalData.bytes), into: output)
        } catch {
            throw .doesNotAuthenticate("event does not authenticate under its data key")
        }
        do {
            return try EventCodec.decode(UnsafeRawBufferPointer(output))
        } catch {
            throw .undecodable(error)
        }
    }
}
