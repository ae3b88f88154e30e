import Foundation
import GiftKeeperCrypto

/// The cryptography a replay cannot avoid, on the frames of a real fixture journal: for
/// every frame, the keyed BLAKE2b frame hash over its bytes (exactly what opening computes)
/// and an XChaCha20-Poly1305 open of a payload of the same length with 60 bytes of
/// additional data (the data key of the fixture is secret, so the payloads are resealed
/// under a benchmark key, one per distinct length). Nothing else: no decode, no fold.
final class CryptoBound: @unchecked Sendable {
    private let file: [UInt8]
    /// Offset and payload length of each frame.
    private let frames: [(offset: Int, length: Int)]
    /// A sealed payload per distinct length, and which one each frame uses.
    private let samples: [[UInt8]]
    private let sampleOfFrame: [Int32]
    private let key: SecureBytes
    private let additionalData = [UInt8](repeating: 1, count: 60)
    private let hash = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 8)
    private var plaintext = [UInt8](repeating: 0, count: 1 << 20)

    var frameCount: Int { frames.count }

    init(journalPath: String) throws {
        file = Array(try Data(contentsOf: URL(fileURLWithPath: journalPath)))
        key = try AEAD.generateKey()
        var frames: [(Int, Int)] = []
        var offset = 60
        while offset + 53 <= file.count {
            let length = file.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
            frames.append((offset, length))
            offset += 53 + length
        }
        var slot: [Int: Int32] = [:]
        var samples: [[UInt8]] = []
        var sampleOfFrame: [Int32] = []
        sampleOfFrame.reserveCapacity(frames.count)
        for (_, length) in frames {
            if let index = slot[length] {
                sampleOfFrame.append(index)
                continue
            }
            let plain = [UInt8](repeating: 0x41, count: max(0, length - AEAD.nonceLength - AEAD.tagLength))
            samples.append(try AEAD.seal(plain, key: key, additionalData: additionalData))
            slot[length] = Int32(samples.count - 1)
            sampleOfFrame.append(Int32(samples.count - 1))
        }
        self.frames = frames
        self.samples = samples
        self.sampleOfFrame = sampleOfFrame
    }

    deinit {
        hash.deallocate()
    }

    /// One pass over every frame.
    func run() {
        file.withUnsafeBytes { bytes in
            additionalData.withUnsafeBytes { ad in
                plaintext.withUnsafeMutableBytes { out in
                    var previous = UnsafeRawBufferPointer(rebasing: bytes[28..<60])  // the genesis hash
                    for (index, frame) in frames.enumerated() {
                        let hashed = 21 + frame.length
                        Blake2b.hash(
                            UnsafeRawBufferPointer(rebasing: bytes[frame.offset..<frame.offset + hashed]),
                            key: previous, into: hash)
                        previous = UnsafeRawBufferPointer(
                            rebasing: bytes[frame.offset + hashed..<frame.offset + hashed + 32])
                        samples[Int(sampleOfFrame[index])].withUnsafeBytes { sealed in
                            let length = sealed.count - AEAD.nonceLength - AEAD.tagLength
                            try? AEAD.open(
                                sealed, key: key, additionalData: ad,
                                into: UnsafeMutableRawBufferPointer(rebasing: out[0..<length]))
                        }
                    }
                }
            }
        }
    }
}
