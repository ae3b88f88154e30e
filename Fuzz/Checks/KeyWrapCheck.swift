@testable import GiftKeeperCrypto
@testable import GiftKeeperSealing
@testable import GiftKeeperService

/// The key-wrap parser (the only payload read before a password is known): it accepts
/// exactly the layout of docs/journal-format.md with a key-derivation cost in bounds, and
/// what it accepts is every byte of the payload, in place.
enum KeyWrapCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        let payload: KeyWrapPayload
        do {
            payload = try KeyWrapPayload(parsing: input)
        } catch {
            // Refused, with its fault as data (malformed or unsafe parameters): nothing to check.
            return
        }
        let parameters = payload.parameters
        try require(
            (try? KDFParameters(validatingOpsLimit: parameters.opsLimit, memLimit: parameters.memLimit)) != nil,
            "a key wrap with an unsafe key-derivation cost is accepted")
        try require(
            payload.clearPart == Array(input.prefix(KeyWrapPayload.clearLength)),
            "the clear part bound into the wrap is not the payload's first 66 bytes")
        var rebuilt = payload.clearPart + payload.wrappedDataKey + payload.sealedSecretKey
        if let previous = payload.sealedPreviousDataKey {
            rebuilt += [1] + previous
        } else {
            rebuilt += [0]
        }
        try require(rebuilt == input, "the parsed key wrap is not the payload, byte for byte")
        try require(
            payload.salt == Array(input[18..<34]) && payload.publicKey == Array(input[34..<66]),
            "salt or public key read from the wrong place")
    }
}
