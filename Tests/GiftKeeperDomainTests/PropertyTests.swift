import GiftKeeperDomain
import OrderedCollections
import PropertyBased
import Testing

@Suite struct PropertyTests {
    @Test func evolveAcceptsAnyHistory() async {
        await propertyCheck(count: 300, input: Generate.events(0...60)) { events in
            let state = GiftList.fold(events)
            #expect(state.eventCount == events.count)
            #expect(state.lastEventAt == events.last?.at)
            // Invariants that hold whatever the history.
            for (id, present) in state.presents {
                #expect(present.id == id)
                #expect(state.removedPresents[id] == nil)
                #expect(id.number < state.nextPresentNumber || state.nextPresentNumber == .max)
            }
            if state.accountName == nil { #expect(state.presents.isEmpty && !state.isSignedIn) }
            // evolve and apply agree.
            #expect(events.reduce(GiftList(), GiftList.evolve) == state)
            // Derived views never trap and account for every present.
            #expect(state.totals.count == state.presents.count)
            #expect(state.totals.countsByStatus.values.reduce(0, +) == state.presents.count)
            for event in events { _ = event.summary }
        }
    }

    @Test func foldOfDecidedEventsEqualsLiveState() async {
        await propertyCheck(count: 300, input: Generate.commands(0...50)) { commands in
            var live = GiftList()
            var journal: [Event] = []
            var time: Int64 = 1_700_000_000_000
            for command in commands {
                time += 1_000
                guard let events = try? GiftList.decide(command, at: at(time), state: live) else { continue }
                for event in events { live.apply(event) }
                journal += events
                // Every decided event survives the codec unchanged.
                for event in events { #expect((try? EventCodec.decode(EventCodec.encode(event))) == event) }
            }
            #expect(GiftList.fold(journal) == live)
        }
    }

    @Test func decideIsIdempotent() async {
        await propertyCheck(count: 300, input: Generate.commands(0...50)) { commands in
            var state = GiftList()
            var time: Int64 = 1_700_000_000_000
            for command in commands {
                time += 1_000
                guard let events = try? GiftList.decide(command, at: at(time), state: state) else { continue }
                state = events.reduce(state, GiftList.evolve)
                switch command {
                case .markPresent, .editPresent, .signIn, .signOut, .endUncleanSession:
                    let again = try GiftList.decide(command, at: at(time + 1), state: state)
                    #expect(again == [], "\(command) decided twice")
                default:
                    break
                }
            }
        }
    }
}
