package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal

/// Seals events into frame payloads and opens them again: the one place that knows
/// which key and which additional data each frame kind uses.
package enum EventSealing {
    /// Kind 1: nonce ‖ XChaCha20-Poly1305(EventCodec bytes, padded from format version 2)
    /// ‖ tag under the epoch's data key, AD = binding(event).
    package static func sealed(_ event: Event, dataKey: SecureBytes, binding: FrameBinding) throws -> [UInt8] {
        let plaintext = EventCodec.encode(event)
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

    /// The length of an opened plaintext before its padding (all of it before version 2).
    private static func unpaddedLength(_ opened: [UInt8], pads: Bool) throws(OpenFailure) -> Int {
        guard pads else { return opened.count }
        guard let length = Padding.unpaddedLength(opened, blockSize: FrameBinding.paddingBlock) else {
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
            let length = try unpaddedLength(opened, pads: binding.padsPayloads)
            plaintext = Array(opened.prefix(length))
        case .publicSealed:
            var opened: [UInt8]
            do {
                opened = try SealedBox.open(frame.payload, with: epoch.boxKeyPair)
            } catch {
                throw .doesNotAuthenticate(.failedLoginDoesNotOpen)
            }
            let length = try unpaddedLength(opened, pads: binding.padsPayloads)
            opened.removeLast(opened.count - length)
            let expected = binding.bytes(for: .failedLoginRecord)
            guard opened.count >= expected.count, constantTimeEqual(Array(opened[..<expected.count]), expected) else {
                throw .doesNotAuthenticate(.failedLoginMoved)
            }
            plaintext = Array(opened[expected.count...])
        case .keyWrap:
            throw .doesNotAuthenticate(.keyWrapOpenedAsEvent)
        case .memberWrap, .epoch, .completion, .householdEvent, .leave:
            throw .doesNotAuthenticate(.householdFrame)
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
