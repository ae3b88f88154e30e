import GiftKeeperDomain

/// Test shorthand for a timestamp.
func at(_ ms: Int64) -> Timestamp { Timestamp(millisecondsSinceEpoch: ms) }

/// Test shorthand for `p<number>`, from a number written in the test (at least 1): stops
/// the run, naming the number, if a test asks for `p0`.
func pid(_ number: UInt64) -> PresentID {
    guard let id = PresentID(number: number) else { preconditionFailure("p\(number) is not a present id: a bug in the test") }
    return id
}

/// Test shorthand for `w<number>`, as ``pid(_:)`` is for presents.
func wid(_ number: UInt64) -> WishID {
    guard let id = WishID(number: number) else { preconditionFailure("w\(number) is not a wish id: a bug in the test") }
    return id
}

/// Test shorthand for an amount in cents, written in the test: stops the run, naming the
/// amount, if a test asks for one no price can be.
func cents(_ value: Int64) -> Money {
    guard let money = Money(minorUnits: value) else { preconditionFailure("\(value) cents is not an amount: a bug in the test") }
    return money
}

/// Runs `commands` from an empty journal, one millisecond apart, and returns the state and
/// the events; a command that fails stops everything.
func run(_ commands: [Command], from start: GiftList = GiftList()) throws -> (state: GiftList, events: [Event]) {
    var state = start
    var events: [Event] = []
    var time = state.lastEventAt?.millisecondsSinceEpoch ?? 1_000
    for command in commands {
        time += 1
        let new = try GiftList.decide(command, at: at(time), state: state)
        for event in new { state.apply(event) }
        events += new
    }
    return (state, events)
}

/// A signed-in account "Alice" with two presents: p1 "Blue scarf" for Mum (25.00), p2 "Book" for Dad.
func aliceWithTwoPresents() throws -> GiftList {
    try run([
        .createAccount(name: "Alice"),
        .change(.addPresent(recipient: "Mum", title: "Blue scarf", price: cents(2500), occasion: "Christmas")),
        .change(.addPresent(recipient: "Dad", title: "Book")),
    ]).state
}
