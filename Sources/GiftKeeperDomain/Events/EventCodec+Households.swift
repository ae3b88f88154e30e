/// The payloads of a household's events (SPEC §13; tags `0x16`–`0x1A` in ``EventCodec``'s
/// table).
extension EventWriter {
    mutating func household(_ body: EventBody) {
        switch body {
        case .wishAdded(let wish):
            unsigned(wish.id.number)
            string(wish.wisher)
            string(wish.title)
            string(wish.notes)
            money(wish.price)
            string(wish.url)
            string(wish.suggestedBy)
        case .wishRemoved(let id):
            unsigned(id.number)
        case .wishClaimed(let id, let claimer, let present):
            unsigned(id.number)
            string(claimer)
            unsigned(present.number)
        case .wishUnclaimed(let id, let claimer):
            unsigned(id.number)
            string(claimer)
        case .giversSet(let id, let givers):
            unsigned(id.number)
            unsigned(UInt64(givers.count))
            for giver in givers { string(giver) }
        default:
            preconditionFailure("not a household's event: \(body.type)")
        }
    }
}

extension EventReader {
    mutating func household(_ type: EventType) throws(EventDecodingError) -> EventBody {
        switch type {
        case .wishAdded:
            let id = try wishID()
            let (wisher, title, notes, price) = (try string(), try string(), try string(), try money())
            return .wishAdded(
                Wish(id: id, wisher: wisher, title: title, notes: notes, price: price, url: try string(), suggestedBy: try string()))
        case .wishRemoved:
            return .wishRemoved(id: try wishID())
        case .wishClaimed:
            let id = try wishID()
            let claimer = try string()
            return .wishClaimed(id: id, claimer: claimer, present: try presentID())
        case .wishUnclaimed:
            let id = try wishID()
            return .wishUnclaimed(id: id, claimer: try string())
        case .giversSet:
            let id = try presentID()
            let countOffset = offset
            let count = try unsigned()
            // Each giver takes at least a byte: a count the rest cannot hold is a truncation.
            guard count <= UInt64(remaining) else { throw .truncated(offset: countOffset) }
            var givers: [String] = []
            for _ in 0..<count { givers.append(try string()) }
            return .giversSet(id: id, givers: givers)
        default:
            throw .unknownEventType(type.tag)
        }
    }

    mutating func wishID() throws(EventDecodingError) -> WishID {
        let start = offset
        guard let id = WishID(number: try unsigned()) else { throw .invalidValue(.wishID, offset: start) }
        return id
    }
}
