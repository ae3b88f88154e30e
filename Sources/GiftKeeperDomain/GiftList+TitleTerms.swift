import OrderedCollections

extension GiftList {
    /// What gift memory compares a title by: its folded key, and its folded words of three
    /// letters or more — each as a 64-bit FNV-1a hash of its bytes, sorted, so that two
    /// titles are compared by one merge of two short arrays, without hashing or comparing
    /// strings (`add` compares the new title with each of the person's presents). Two
    /// different words with one hash would make one note too many; among a person's words
    /// that is about as likely as never.
    public struct TitleTerms: Sendable {
        public let key: String
        /// The key's hash, compared before the key itself: most titles a new one is
        /// compared with differ from it.
        let keyHash: UInt64
        let wordHashes: [UInt64]

        /// The terms of no title: a placeholder where none is known yet.
        static let none = TitleTerms("")

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
            keyHash = folded.withUTF8 { $0.reduce(Self.emptyHash, Self.hash) }
            wordHashes = hashes
        }

        /// The hashes of an ASCII key's words of three letters or more, its runs of letters
        /// and digits, hashed as they are read; nil when the key is not ASCII
        /// (``TextFolding/words(ofKey:)`` finds those).
        static func asciiWordHashes(_ key: UnsafeBufferPointer<UInt8>) -> [UInt64]? {
            var hashes: [UInt64] = []
            // A word of three letters and the byte after it: room for every word at once.
            hashes.reserveCapacity(key.count / 4 + 1)
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

        /// Whether the two titles are the same when folded.
        func hasKey(of other: TitleTerms) -> Bool { keyHash == other.keyHash && key == other.key }

        /// How many words the two titles share: one merge of the sorted hashes, over their
        /// buffers (`add` makes one for each of the person's presents).
        func sharedWords(with other: TitleTerms) -> Int {
            wordHashes.withUnsafeBufferPointer { mine in
                other.wordHashes.withUnsafeBufferPointer { theirs in
                    var (index, otherIndex, shared) = (0, 0, 0)
                    while index < mine.count, otherIndex < theirs.count {
                        let (hash, otherHash) = (mine[index], theirs[otherIndex])
                        if hash == otherHash {
                            shared += 1
                            index += 1
                            otherIndex += 1
                        } else if hash < otherHash {
                            index += 1
                        } else {
                            otherIndex += 1
                        }
                    }
                    return shared
                }
            }
        }
    }
}

/// The ``GiftList/TitleTerms`` of each person's presents, kept from one gift-memory scan to
/// the next (``GiftList/similarPresents(to:for:keeping:remembering:)``): `add` compares a new
/// title with all of a person's presents every time, and their terms change only when a
/// title does. Kept in the order of the person's presents in the list's index, so a scan
/// finds what it remembers of a present by its place, without hashing; a title that is
/// not the one remembered at its place (another present, an edited title) gets new terms
/// there.
public final class TitleTermsMemory {
    /// What is remembered of one person's presents, by place in the index.
    struct Terms {
        /// What is remembered of the present at one place.
        private struct Entry {
            /// Where it was last found among the list's presents (-1: not there): a removal
            /// moves the presents after it, so the place is used only when the present found
            /// there has the id expected.
            var presentIndex = -1
            /// The title ``terms`` are of; nil until a title is seen at this place.
            var title: String?
            var terms = GiftList.TitleTerms.none
        }

        private var entries: [Entry] = []
        /// The terms of the title a scan was last made for: most likely the title of the
        /// next present found at a place with nothing remembered (the one `add` then added).
        var lastSought: (title: String, terms: GiftList.TitleTerms)?

        /// Entries up to `position`, the new ones knowing nothing yet.
        private mutating func makeRoom(for position: Int) {
            while position >= entries.count { entries.append(Entry()) }
        }

        /// The index among `presents` of `id`, the present at `position`; nil when it is
        /// not there (removed).
        mutating func index(
            at position: Int, of id: PresentID, in presents: OrderedDictionary<PresentID, Present>
        ) -> Int? {
            if position < entries.count {
                let known = entries[position].presentIndex
                if known >= 0, known < presents.count, presents.keys[known] == id { return known }
            }
            makeRoom(for: position)
            let found = presents.index(forKey: id)
            entries[position].presentIndex = found ?? -1
            return found
        }

        /// What `body` makes of the terms of `title`, the title of the present at
        /// `position`: read where they are kept, not copied out (a scan reads every one of
        /// a person's presents' terms, every `add`). Inlined into the scan: called, it
        /// copied the terms at the call (the scan took 21,500 instructions an `add`, 13,200 inlined).
        @inline(__always)
        mutating func withTerms<Result>(
            at position: Int, of title: String, _ body: (borrowing GiftList.TitleTerms) -> Result
        ) -> Result {
            if position >= entries.count || entries[position].title != title { learn(title, at: position) }
            return body(entries[position].terms)
        }

        /// Remembers the terms of `title` at `position`.
        private mutating func learn(_ title: String, at position: Int) {
            makeRoom(for: position)
            if let sought = lastSought, sought.title == title {
                entries[position].terms = sought.terms
            } else {
                entries[position].terms = GiftList.TitleTerms(title)
            }
            entries[position].title = title
        }
    }

    private var byRecipient: [String: Terms] = [:]

    public init() {}

    /// Lets `body` read and update the terms remembered for a person (folded name), in place.
    func update(_ recipientKey: String, _ body: (inout Terms) -> Void) {
        body(&byRecipient[recipientKey, default: Terms()])
    }
}
