extension GiftList {
    /// What gift memory compares a title by: its folded key, and its folded words of three
    /// letters or more.
    public struct TitleTerms: Sendable {
        public let key: String
        let words: Set<String>
        /// Each word's hash (``wordHash(_:)``), sorted: what an ASCII title is compared with.
        let wordHashes: [UInt64]

        public init(_ title: String) {
            key = TextFolding.key(title)
            words = TextFolding.words(ofKey: key).filter { $0.count >= 3 }
            wordHashes = words.map { TitleTerms.wordHash($0.utf8) }.sorted()
        }

        /// How alike `title` is to this one, as shared words per word of the shorter title
        /// (2 for the same title); nil when they share fewer than half of the shorter one's
        /// words. An ASCII title is read once, byte by byte, its words hashed as they are
        /// read (`hashes` is room for them, reused from one title to the next): `add`
        /// compares the new title with every present of the person.
        func likeness(to title: String, hashes: inout [UInt64]) -> Double? {
            hashes.removeAll(keepingCapacity: true)
            let isASCII =
                title.utf8.withContiguousStorageIfAvailable { Self.asciiWordHashes($0, into: &hashes) }
                ?? Self.asciiWordHashes(title.utf8, into: &hashes)
            guard isASCII else {
                return TextFolding.matches(title, key: key) ? 2 : likeness(words: TitleTerms(title).words)
            }
            hashes.sort()
            var (distinct, shared) = (0, 0)
            for index in hashes.indices where index == 0 || hashes[index] != hashes[index - 1] {
                distinct += 1
                if wordHashes.contains(hashes[index]) { shared += 1 }
            }
            // The same title folded has the same words: only then is the key compared.
            if shared == wordHashes.count, distinct == shared, TextFolding.matches(title, key: key) { return 2 }
            return Self.likeness(shared: shared, fewer: min(wordHashes.count, distinct))
        }

        private func likeness(words other: Set<String>) -> Double? {
            Self.likeness(shared: words.intersection(other).count, fewer: min(words.count, other.count))
        }

        private static func likeness(shared: Int, fewer: Int) -> Double? {
            fewer > 0 && shared > 0 && shared * 2 >= fewer ? Double(shared) / Double(fewer) : nil
        }

        /// The hashes of an ASCII title's folded words of three letters or more (its runs of
        /// letters and digits, lower case); false when the title is not ASCII.
        static func asciiWordHashes(_ title: some Sequence<UInt8>, into hashes: inout [UInt64]) -> Bool {
            var (hash, length) = (emptyHash, 0)
            for byte in title {
                if byte >= 0x80 { return false }
                let folded = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                if TextFolding.isASCIIWordByte(folded) {
                    hash = (hash ^ UInt64(folded)) &* prime
                    length += 1
                    continue
                }
                if length >= 3 { hashes.append(hash) }
                (hash, length) = (emptyHash, 0)
            }
            if length >= 3 { hashes.append(hash) }
            return true
        }

        /// FNV-1a, 64 bits, of a folded word's bytes. Two words with one hash would make one
        /// note too many; among a person's words that is about as likely as never.
        static func wordHash(_ bytes: some Sequence<UInt8>) -> UInt64 {
            bytes.reduce(emptyHash) { ($0 ^ UInt64($1)) &* prime }
        }

        private static let emptyHash: UInt64 = 0xcbf2_9ce4_8422_2325
        private static let prime: UInt64 = 0x0000_0100_0000_01B3
    }
}
