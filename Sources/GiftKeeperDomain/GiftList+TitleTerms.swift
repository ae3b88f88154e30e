extension GiftList {
    /// What gift memory compares a title by: its folded key, and its folded words of three
    /// letters or more.
    public struct TitleTerms: Sendable {
        public let key: String
        let words: Set<String>

        public init(_ title: String) {
            key = TextFolding.key(title)
            words = TextFolding.words(ofKey: key).filter { $0.count >= 3 }
        }

        /// How alike the two titles are, as shared words per word of the shorter one (2 for
        /// the same title); nil when they share fewer than half of the shorter one's words.
        func likeness(to other: TitleTerms) -> Double? {
            if key == other.key { return 2 }
            let fewer = min(words.count, other.words.count)
            guard fewer > 0 else { return nil }
            let shared = words.intersection(other.words).count
            return shared > 0 && shared * 2 >= fewer ? Double(shared) / Double(fewer) : nil
        }
    }
}
