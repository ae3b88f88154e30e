package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal
import Glibc

/// Seals events into frame payloads and opens them again: the one place that knows
/// which key and which additional data each frame kind uses.
package enum EventSealing {
    /// Kind 1: nonce ‖ XChaCha20-Poly1305(EventCodec bytes, padded from format version 2)
    /// ‖ tag under the epoch's data key, AD = binding(event).
    package static func sealed(_ event: Event, dataKey: SecureBytes, binding: FrameBinding) throws -> [UInt8] {
        let plaintext = EventCodec.encode(event, reservingAfter: binding.padsPayloads ? FrameBinding.paddingBlock : 0)
        return try AEAD.seal(padded(plaintext, binding), key: dataKey, additionalData: binding.bytes(for: .event))
    }

    /// Kind 2: crypto_box_seal(binding(failedLoginRecord) ‖ EventCodec bytes, padded from
    /// format version 2) to the epoch's public key. A sealed box has no additional data, so
    /// the binding travels inside and is compared on opening.
    package static func sealedToPublicKey(_ event: Event, publicKey: [UInt8], binding: FrameBinding) throws -> [UInt8] {
        try SealedBox.seal(padded(binding.bytes(for: .failedLoginRecord) + EventCodec.encode(event), binding), to: publicKey)
    }

    /// What is sealed in a journal of `binding`'s format version: from version 2, padded to
    /// ``FrameBinding/paddingBlock``-byte blocks, so a frame's size tells how many blocks
    /// its event fills, not how long its text is (SPEC §12: the server sees frame sizes).
    private static func padded(_ plaintext: consuming [UInt8], _ binding: FrameBinding) throws -> [UInt8] {
        guard binding.padsPayloads else { return plaintext }
        return try Padding.padded(plaintext, blockSize: FrameBinding.paddingBlock)
    }

    /// The length of an opened plaintext of `count` bytes before its padding (all of it
    /// before version 2); `unpad` reads the padding for a block size.
    package static func unpaddedLength(_ count: Int, pads: Bool, _ unpad: (Int) -> Int?) throws(OpenFailure) -> Int {
        guard pads else { return count }
        guard let length = unpad(FrameBinding.paddingBlock) else {
            throw .doesNotAuthenticate(.eventNotPadded)
        }
        return length
    }

    package enum OpenFailure: Error {
        case doesNotAuthenticate(Tampering)
        case undecodable(EventDecodingError)
    }

    package static func open(
        _ frame: FrameView, binding: FrameBinding, epoch: Keyring.Epoch
    ) throws(OpenFailure) -> Event {
        let plaintext: [UInt8]
        switch frame.kind {
        case .dataSealed:
            let opened: [UInt8]
            do {
                opened = try AEAD.open(frame.payload, key: epoch.dataKey, additionalData: binding.bytes(for: .event))
            } catch {
                throw .doesNotAuthenticate(.eventDoesNotAuthenticate)
            }
            let length = try unpaddedLength(opened.count, pads: binding.padsPayloads) { Padding.unpaddedLength(opened, blockSize: $0) }
            plaintext = Array(opened.prefix(length))
        case .publicSealed:
            var opened: [UInt8]
            do {
                opened = try SealedBox.open(frame.payload, with: epoch.boxKeyPair)
            } catch {
                throw .doesNotAuthenticate(.failedLoginDoesNotOpen)
            }
            let length = try unpaddedLength(opened.count, pads: binding.padsPayloads) { Padding.unpaddedLength(opened, blockSize: $0) }
            opened.removeLast(opened.count - length)
            let expected = binding.bytes(for: .failedLoginRecord)
            guard opened.count >= expected.count, constantTimeEqual(Array(opened[..<expected.count]), expected) else {
                throw .doesNotAuthenticate(.failedLoginMoved)
            }
            plaintext = Array(opened[expected.count...])
        case .keyWrap:
            throw .doesNotAuthenticate(.keyWrapOpenedAsEvent)
        }
        let event: Event
        do {
            event = try EventCodec.decode(plaintext)
        } catch {
            throw .undecodable(error)
        }
        if frame.kind == .publicSealed, event.type != .loginFailed {
            throw .doesNotAuthenticate(.notAFailedLogin)
        }
        return event
    }
}

/// Opens the kind-1 frames of a replay without allocating per frame.
///
/// One additional-data buffer whose fixed part is written once, and one plaintext buffer
/// that grows to the largest event seen; each event is decoded by ``EventCodec`` straight
/// from it. The plaintext buffer is zeroed when the opener goes away. One per replay.
package final class EventOpener {
    private let additionalData: EventAdditionalData
    private var plaintext: UnsafeMutableRawBufferPointer
    /// Whether the journal's events are padded (format version 2 on).
    private let pads: Bool
    #if DEBUG
        /// The journal's binding, to check the in-place bytes against in debug builds.
        private let binding: (UInt64, FrameKind, [UInt8]) -> FrameBinding
    #endif

    package init(formatVersion: UInt16, journalID: [UInt8], binding: @escaping (UInt64, FrameKind, [UInt8]) -> FrameBinding) {
        additionalData = EventAdditionalData(formatVersion: formatVersion, journalID: journalID)
        pads = FrameBinding.padsPayloads(formatVersion: formatVersion)
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
    package func open(_ frame: FrameView, dataKey: SecureBytes) throws(EventSealing.OpenFailure) -> Event {
        additionalData.update(sequence: frame.sequence, kind: frame.kind, previousHash: frame.previousHash)
        #if DEBUG
            assert(Array(additionalData.bytes) == binding(frame.sequence, frame.kind, Array(frame.previousHash)).bytes(for: .event))
        #endif
        let messageLength = frame.payload.count - AEAD.nonceLength - AEAD.tagLength
        guard messageLength >= 0 else {
            throw .doesNotAuthenticate(.eventDoesNotAuthenticate)
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
            throw .doesNotAuthenticate(.eventDoesNotAuthenticate)
        }
        let length = try EventSealing.unpaddedLength(messageLength, pads: pads) {
            Padding.unpaddedLength(UnsafeRawBufferPointer(output), blockSize: $0)
        }
        do {
            return try EventCodec.decode(UnsafeRawBufferPointer(rebasing: output[0..<length]))
        } catch {
            throw .undecodable(error)
        }
    }
}
