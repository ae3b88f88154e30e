/// A failure in the cryptography layer. Carries no secret and no plaintext.
public struct CryptoError: Error, Equatable, Sendable {
    /// What went wrong, as data; `description` names it in a few words (a reason for the
    /// shell's sentence, never a sentence of its own).
    public enum Code: Equatable, Sendable {
        /// `sodium_init` failed: the library cannot be used at all.
        case initializationFailed
        /// `sodium_malloc` returned NULL.
        case outOfSecureMemory(bytes: Int)
        /// Authentication failed: wrong key, altered ciphertext, tag or additional data.
        case authenticationFailed
        /// An input had the wrong length.
        case invalidLength(what: String, expected: Int, actual: Int)
        /// Key derivation parameters outside the bounds this program accepts.
        case unsafeKDFParameters(opsLimit: UInt64, memLimit: UInt64)
        /// `crypto_pwhash` failed (usually: not enough memory for the requested cost).
        case keyDerivationFailed
        /// A libsodium call returned an unexpected error.
        case operationFailed(function: String)
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }
}
