/// A present as the fold of its events sees it.
public struct Present: Hashable, Sendable {
    public var id: PresentID
    public var recipient: String
    public var title: String
    /// Free text, may be empty.
    public var notes: String
    /// Nil when no price was given.
    public var price: Money?
    /// Free text such as "Christmas 2026", may be empty.
    public var occasion: String
    /// Where to find it online, may be empty.
    public var url: String
    /// The shop, may be empty.
    public var store: String
    public var status: PresentStatus
    /// When it was marked given; nil unless its status is `given`.
    public var givenAt: Timestamp?
    public var createdAt: Timestamp
    /// The time of the last event that touched it (for a removed present, its removal).
    public var updatedAt: Timestamp

    public init(
        id: PresentID, recipient: String, title: String, notes: String = "", price: Money? = nil,
        occasion: String = "", url: String = "", store: String = "", status: PresentStatus = .idea,
        givenAt: Timestamp? = nil, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.recipient = recipient
        self.title = title
        self.notes = notes
        self.price = price
        self.occasion = occasion
        self.url = url
        self.store = store
        self.status = status
        self.givenAt = givenAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The current value of `field` as the change that would set it.
    public func value(of field: PresentField) -> PresentChange {
        switch field {
        case .title: .title(title)
        case .recipient: .recipient(recipient)
        case .notes: .notes(notes)
        case .price: .price(price)
        case .occasion: .occasion(occasion)
        case .url: .url(url)
        case .store: .store(store)
        }
    }

    /// Applies one change.
    public mutating func apply(_ change: PresentChange) {
        switch change {
        case .title(let value): title = value
        case .recipient(let value): recipient = value
        case .notes(let value): notes = value
        case .price(let value): price = value
        case .occasion(let value): occasion = value
        case .url(let value): url = value
        case .store(let value): store = value
        }
    }
}

/// A new value for one field of a present (a price can be set or cleared).
public enum PresentChange: Hashable, Sendable {
    case title(String)
    case recipient(String)
    case notes(String)
    case price(Money?)
    case occasion(String)
    case url(String)
    case store(String)

    public var field: PresentField {
        switch self {
        case .title: .title
        case .recipient: .recipient
        case .notes: .notes
        case .price: .price
        case .occasion: .occasion
        case .url: .url
        case .store: .store
        }
    }

    /// Reads the value typed for `field` in `edit <id> <field>=<value>`: text is taken as is
    /// (``GiftList/decide(_:at:state:)`` trims and checks it); for the price an empty value
    /// or `none` clears it, anything else must parse as ``Money``.
    /// - Throws: ``DomainError/invalidPrice(_:reason:)``.
    public init(field: PresentField, value: String) throws(DomainError) {
        switch field {
        case .title: self = .title(value)
        case .recipient: self = .recipient(value)
        case .notes: self = .notes(value)
        case .occasion: self = .occasion(value)
        case .url: self = .url(value)
        case .store: self = .store(value)
        case .price:
            let trimmed = value.trimmedWhitespace()
            if trimmed.isEmpty || trimmed.lowercased() == "none" {
                self = .price(nil)
            } else {
                self = .price(try Money.parsePrice(trimmed))
            }
        }
    }
}
