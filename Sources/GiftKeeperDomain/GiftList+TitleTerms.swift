extension GiftList {
    /// What gift memory compares a title by: its folded key, and its folded words of three
    /// letters or more — each as a 64-bit FNV-1a hash of its bytes, sorted, so that two
    /// titles are compared by one merge of two short arrays, without hashing or comparing
    /// strings (`add` compares the new title with each of the person's presents). Two
    /// different words with one hash would make one note too many; among a person's words
    /// that is about as likely as never.
    public struct TitleTerms: Sendable {
        public let key: String
        let wordHashes: [UInt64]

        public init(_ title: String) {
            var folded = TextFolding.key(title)
            var hashes =
                folded.withUTF8(Self.asciiWordHashes)
                ?? TextFolding.words(ofKey: folded).filter { $0.count >= 3 }.map { $0.utf8.reduce(Self.emptyHash, Self.hash) }
            hashes.sort()
            var unique = 0
            for index in hashes.indices where index == 0 || hashes[index] != hashes[unique - 1] {
                hashes[unique] = hashes[index]
                unique += 1
            }
            hashes.removeLast(hashes.count - unique)
            key = folded
            wordHashes = hashes
        }

        /// The hashes of an ASCII key's words of three letters or more, its runs of letters
        /// and digits, hashed as they are read; nil when the key is not ASCII
        /// (``TextFolding/words(ofKey:)`` finds those).
        static func asciiWordHashes(_ key: UnsafeBufferPointer<UInt8>) -> [UInt64]? {
            var hashes: [UInt64] = []
            var (hash, length) = (emptyHash, 0)
            for byte in key {
                if byte >= 0x80 { return nil }
                if TextFolding.isASCIIWordByte(byte) {
                    hash = Self.hash(hash, byte)
                    length += 1
                    continue
                }
                if length >= 3 { hashes.append(hash) }
                (hash, length) = (emptyHash, 0)
            }
            if length >= 3 { hashes.append(hash) }
            return hashes
        }

        /// FNV-1a, 64 bits: the hash of no bytes, and the hash of those bytes and one more.
        static let emptyHash: UInt64 = 0xcbf2_9ce4_8422_2325
        static func hash(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }

        /// How many words the two titles share.
        func sharedWords(with other: TitleTerms) -> Int {
            var (mine, theirs, shared) = (0, 0, 0)
            while mine < wordHashes.count, theirs < other.wordHashes.count {
                if wordHashes[mine] == other.wordHashes[theirs] {
                    shared += 1
                    mine += 1
                    theirs += 1
                } else if wordHashes[mine] < other.wordHashes[theirs] {
                    mine += 1
                } else {
                    theirs += 1
                }
            }
            return shared
        }
    }
}
