/// XChaCha20-Poly1305 (IETF) authenticated encryption with additional data.
///
/// Each seal draws a fresh random 24-byte nonce, which is safe at any volume with
/// XChaCha20's extended nonce. The corresponding C functions are
/// `crypto_aead_xchacha20poly1305_ietf_encrypt` and `…_decrypt`.
public enum AEAD {
    /// Key length: 32 bytes.
    public static let keyLength = SodiumConstant.aeadKeyBytes
    /// Nonce length: 24 bytes.
    public static let nonceLength = SodiumConstant.aeadNonceBytes
    /// Authentication tag length: 16 bytes.
    public static let tagLength = SodiumConstant.aeadTagBytes

    /// A fresh random key in guarded memory.
    public static func generateKey() throws -> SecureBytes {
        try SecureBytes.random(count: keyLength)
    }

    /// Seals `plaintext` under `key`, binding `additionalData`.
    /// - Returns: nonce ‖ ciphertext ‖ tag (`nonceLength + plaintext.count + tagLength` bytes).
    public static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecureBytes, additionalData: [UInt8]
    ) throws -> [UInt8] {
        let sodium = try checkKey(key)
        var result: Int32 = -1
        let length = nonceLength + plaintext.count + tagLength
        // The nonce is drawn into the output and the ciphertext written after it: one array.
        var output = [UInt8].zeroed(count: length)
        output.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            sodium.randomBytes(base, count: nonceLength)
            result = key.withUnsafeBytes { keyBytes in
                additionalData.withUnsafeBytes { ad in
                    sodium.aeadEncrypt(base + nonceLength, plaintext, additionalData: ad, nonce: base, key: keyBytes)
                }
            }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_aead_xchacha20poly1305_ietf_encrypt")) }
        return output
    }

    /// Seals `plaintext` under `key`; see ``seal(_:key:additionalData:)-(UnsafeRawBufferPointer,_,_)``.
    public static func seal(_ plaintext: [UInt8], key: SecureBytes, additionalData: [UInt8]) throws -> [UInt8] {
        try plaintext.withUnsafeBytes { p in try seal(p, key: key, additionalData: additionalData) }
    }

    /// Seals secret bytes (a key being wrapped) under `key`.
    public static func seal(_ secret: SecureBytes, key: SecureBytes, additionalData: [UInt8]) throws -> [UInt8] {
        try secret.withUnsafeBytes { p in try seal(p, key: key, additionalData: additionalData) }
    }

    /// Opens nonce ‖ ciphertext ‖ tag into `output`, which must hold exactly
    /// `sealed.count - nonceLength - tagLength` bytes.
    /// - Throws: ``CryptoError/Code/authenticationFailed`` on any alteration or wrong key/AD.
    public static func open(
        _ sealed: UnsafeRawBufferPointer, key: SecureBytes, additionalData: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws {
        let sodium = try checkKey(key)
        guard sealed.count >= nonceLength + tagLength else { throw CryptoError(.authenticationFailed) }
        let messageLength = sealed.count - nonceLength - tagLength
        guard output.count == messageLength else {
            throw CryptoError(.invalidLength(what: "AEAD output", expected: messageLength, actual: output.count))
        }
        let base = sealed.uint8Pointer
        let result = key.withUnsafeBytes { keyBytes in
            sodium.aeadDecrypt(
                output, base + nonceLength, count: sealed.count - nonceLength, additionalData: additionalData,
                nonce: base, key: keyBytes)
        }
        guard result == 0 else { throw CryptoError(.authenticationFailed) }
    }

    /// Opens nonce ‖ ciphertext ‖ tag into a fresh array (for event plaintexts).
    public static func open(_ sealed: UnsafeRawBufferPointer, key: SecureBytes, additionalData: [UInt8]) throws -> [UInt8] {
        guard sealed.count >= nonceLength + tagLength else { throw CryptoError(.authenticationFailed) }
        var output = [UInt8].zeroed(count: sealed.count - nonceLength - tagLength)
        try output.withUnsafeMutableBytes { out in
            try additionalData.withUnsafeBytes { ad in
                try open(sealed, key: key, additionalData: ad, into: out)
            }
        }
        return output
    }

    /// Opens nonce ‖ ciphertext ‖ tag into a fresh array (for event plaintexts).
    public static func open(_ sealed: [UInt8], key: SecureBytes, additionalData: [UInt8]) throws -> [UInt8] {
        try sealed.withUnsafeBytes { s in try open(s, key: key, additionalData: additionalData) }
    }

    /// Opens a sealed secret (a wrapped key) straight into guarded memory.
    public static func openSecret(_ sealed: [UInt8], key: SecureBytes, additionalData: [UInt8]) throws -> SecureBytes {
        guard sealed.count >= nonceLength + tagLength else { throw CryptoError(.authenticationFailed) }
        let secret = try SecureBytes(capacity: sealed.count - nonceLength - tagLength)
        try sealed.withUnsafeBytes { s in
            try additionalData.withUnsafeBytes { ad in
                try secret.withUnsafeMutableBytes { out in
                    try open(s, key: key, additionalData: ad, into: out)
                }
            }
        }
        return secret
    }

    private static func checkKey(_ key: SecureBytes) throws -> LibSodium {
        let sodium = try LibSodium.ready()
        guard key.count == keyLength else {
            throw CryptoError(.invalidLength(what: "AEAD key", expected: keyLength, actual: key.count))
        }
        return sodium
    }
}
