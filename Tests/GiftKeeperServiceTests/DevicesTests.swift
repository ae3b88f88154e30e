import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperTestSupport
import OrderedCollections
import Testing

@testable import GiftKeeperSealing
@testable import GiftKeeperService

/// Devices sharing one journal through a server (SPEC §12), the server in memory: each
/// device has its own journal file and state directory.
@Suite struct DevicesTests {
    /// One person's household: a server and the devices' sandboxes.
    final class Household {
        let sandbox: Sandbox
        let server = MemoryRemote()
        init() throws { sandbox = try Sandbox() }

        func environment(_ device: String) -> ServiceEnvironment {
            var environment = sandbox.environment(stateDirectory: sandbox.root + "/state-" + device)
            let server = self.server
            environment.remoteLocation = { _ in server }
            environment.requestedRemote = server.description
            return environment
        }

        func path(_ device: String) -> String { sandbox.root + "/" + device + ".journal" }

        /// The first device: set up, signed in, pushed.
        func firstDevice(_ device: String = "laptop") throws -> GiftKeeperService {
            let service = GiftKeeperService(journalPath: path(device), environment: environment(device))
            try service.open()
            try service.setup(name: "Alice", password: password("correct horse"), parameters: .testMinimum)
            let report = try service.sync()
            #expect(report.createdOnServer)
            return service
        }

        /// Another device: cloned from the server, signed in.
        func clonedDevice(_ device: String) throws -> GiftKeeperService {
            var environment = environment(device)
            environment.requestedRemote = nil  // remembered by the clone
            _ = try JournalClone.clone(url: server.description, to: path(device), password: password("correct horse"), environment: environment)
            return try reopened(device, environment: environment)
        }

        /// A device's journal opened again and signed in (a new process).
        func reopened(_ device: String, environment: ServiceEnvironment? = nil) throws -> GiftKeeperService {
            let service = GiftKeeperService(journalPath: path(device), environment: environment ?? self.environment(device))
            try service.open()
            try service.login(password: password("correct horse"))
            return service
        }

        /// The laptop and a desktop cloned from it, each having heard the other's sign-in;
        /// `first` made and sent on the laptop before the desktop is cloned.
        func laptopAndDesktop(after first: Change? = nil) throws -> (laptop: GiftKeeperService, desktop: GiftKeeperService) {
            let laptop = try firstDevice()
            if let first {
                try laptop.perform(first)
                try laptop.sync()
            }
            let desktop = try clonedDevice("desktop")
            try desktop.sync()
            try laptop.sync()
            return (laptop, desktop)
        }

        /// The first device with two presents, sent; then the server goes back to an older
        /// backup without them. Returns the device and how many frames it saw there.
        func laptopRolledBackOnServer() throws -> (GiftKeeperService, held: Int) {
            let laptop = try firstDevice()
            try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
            try laptop.perform(.addPresent(recipient: "Mum", title: "Scarf"))
            try laptop.sync()
            let held = try serverFrames(laptop).count
            try server.restoreBackup(of: try #require(laptop.sealed?.header.journalID), keeping: held - 2)
            return (laptop, held)
        }

        /// The server's frames, as bytes.
        func serverFrames(_ service: GiftKeeperService) throws -> [[UInt8]] {
            let id = try #require(service.sealed?.header.journalID)
            return server.frames(of: id)
        }
    }

    func titles(_ service: GiftKeeperService) -> [String] {
        service.state.presents.values.map { "\($0.id) \($0.title)" }
    }

    static func localHashes(_ service: GiftKeeperService) throws -> [[UInt8]] {
        try chainHashes(try #require(service.sealed).store)
    }

    @Test("Added on the laptop, seen on the desktop after a sync, and told as a change made elsewhere")
    func addOnOneSeenOnOther() throws {
        let home = try Household()
        let laptop = try home.firstDevice()
        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        try laptop.sync()
        let desktop = try home.clonedDevice("desktop")
        #expect(titles(desktop) == ["p1 Lego set"])
        try desktop.sync()  // its sign-in goes to the server

        try laptop.perform(.addPresent(recipient: "Mum", title: "Blue scarf"))
        let sent = try laptop.sync()
        // The desktop's sign-in came in first: the add is decided again after it, then sent.
        #expect(sent.received == 1)
        #expect(sent.sent == 1)
        #expect(sent.resolutions.isEmpty)
        var told: [HistoryEntry] = []
        desktop.onChangesElsewhere = { told += $0 }
        let report = try #require(try desktop.syncIfNeeded())
        #expect(report.received == 1)
        #expect(titles(desktop) == ["p1 Lego set", "p2 Blue scarf"])
        #expect(
            told.compactMap(\.event?.body) == [
                .presentAdded(id: PresentID(number: 2)!, recipient: "Mum", title: "Blue scarf", notes: "", price: nil, occasion: "")
            ])
        #expect(try Self.localHashes(desktop) == Self.localHashes(laptop))
        #expect(try desktop.syncIfNeeded() == nil)
    }

    @Test("Offline on both: edits and adds on each, then sync; both converge to one state and one chain, the taken id renumbered")
    func offlineChangesConverge() throws {
        let home = try Household()
        let (laptop, desktop) = try home.laptopAndDesktop(after: .addPresent(recipient: "Dad", title: "Lego set", price: Money(parsing: "40")))
        let p1 = try #require(PresentID(number: 1))

        home.server.isReachable = false
        try laptop.perform(.editPresent(id: p1, changes: [.price(Money(parsing: "35"))]))
        try laptop.perform(.addPresent(recipient: "Mum", title: "Book"))
        try desktop.perform(.addPresent(recipient: "Gran", title: "Kite"))
        try desktop.perform(.markPresent(id: p1, status: .bought))
        try desktop.perform(.editPresent(id: p1, changes: [.title("Lego castle")]))
        let offline = serviceError { try laptop.sync() }
        #expect(offline.map { "\($0.code)" }?.contains("unreachable") == true)
        #expect(laptop.unsentFrames == 2)

        home.server.isReachable = true
        try laptop.sync()
        let merged = try desktop.sync()
        #expect(try merged.resolutions == [.renumbered(from: p1.next(), to: p1.next().next(), title: "Kite")])
        try laptop.sync()

        #expect(titles(laptop) == ["p1 Lego castle", "p2 Book", "p3 Kite"])
        #expect(titles(desktop) == titles(laptop))
        let lego = try #require(desktop.state.presents[p1])
        #expect(lego.status == .bought)
        #expect(lego.price == (try Money(parsing: "35")))
        #expect(laptop.state.presents == desktop.state.presents)
        #expect(try Self.localHashes(desktop) == Self.localHashes(laptop))
        #expect(try home.serverFrames(laptop).count == Self.localHashes(laptop).count)

        // A new session on each device replays its file to the same state.
        try desktop.close()
        let again = try home.reopened("desktop")
        #expect(again.state.presents == laptop.state.presents)
    }

    @Test("A present removed on one device and edited on the other offline comes back, edited, and that is told")
    func editRestoresRemovedPresent() throws {
        let home = try Household()
        let (laptop, desktop) = try home.laptopAndDesktop(after: .addPresent(recipient: "Dad", title: "Lego set"))
        let p1 = try #require(PresentID(number: 1))

        try laptop.perform(.removePresent(id: p1))
        try laptop.sync()
        home.server.isReachable = false
        try desktop.perform(.editPresent(id: p1, changes: [.notes("the big one")]))
        home.server.isReachable = true
        let report = try desktop.sync()
        #expect(report.resolutions == [.restored(p1, title: "Lego set")])
        try laptop.sync()
        #expect(laptop.state.presents[p1]?.notes == "the big one")
        #expect(desktop.state.presents == laptop.state.presents)
    }

    @Test("A server restored from an older backup is reported (exit 1) with the way out, which sends the frames back")
    func serverRestoredFromBackup() throws {
        let home = try Household()
        let (laptop, held) = try home.laptopRolledBackOnServer()
        try laptop.close()

        let again = try home.reopened("laptop")
        let error = try #require(serviceError { try again.sync() })
        #expect(error.exitCode == 1)
        guard case .remoteBehind(_, let has, let shared) = error.code else {
            Issue.record("expected remoteBehind, got \(error.code)")
            return
        }
        #expect(has == UInt64(held - 2) && shared == UInt64(held))
        let restored = try again.sync(restoringServer: true)
        #expect(restored.sent >= 2)
        #expect(try home.serverFrames(again).count == Self.localHashes(again).count)
    }

    @Test("A server that forked the journal (frames replaced after what this device saw) is refused with the position")
    func forkedServerIsRefused() throws {
        let home = try Household()
        let laptop = try home.firstDevice()
        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        try laptop.sync()
        let held = try home.serverFrames(laptop).count
        let id = try #require(laptop.sealed?.header.journalID)
        // The server goes back one frame and lets another device append there, hiding the
        // laptop's posted head from it (otherwise the tablet would catch it: below).
        try home.server.restoreBackup(of: id, keeping: held - 1)
        home.server.alterDeviceHeads(of: id) { $0 = [:] }
        let other = try home.clonedDevice("tablet")
        try other.perform(.addPresent(recipient: "Gran", title: "Kite"))
        try other.sync()
        try laptop.close()

        let again = try home.reopened("laptop")
        let error = try #require(serviceError { try again.sync() })
        #expect(error.exitCode == 1)
        guard case .remoteDiverged(_, let sequence, _) = error.code else {
            Issue.record("expected remoteDiverged, got \(error.code)")
            return
        }
        #expect(sequence == UInt64(held))
    }

    @Test("A server that rolled back after one device saw frames is caught by another device, through the first one's posted head")
    func rollbackCaughtThroughAnotherDevicesHead() throws {
        let home = try Household()
        let (laptop, held) = try home.laptopRolledBackOnServer()

        // The tablet never saw the journal before: only the laptop's head tells it.
        let tablet = try home.clonedDevice("tablet")
        let error = try #require(serviceError { try tablet.sync() })
        #expect(error.exitCode == 1)
        guard case .remoteHidesFrames(_, let has, let seen) = error.code else {
            Issue.record("expected remoteHidesFrames, got \(error.code)")
            return
        }
        #expect(has == UInt64(held - 2) && seen == UInt64(held))
        #expect(try home.serverFrames(laptop).count == held - 2)  // nothing sent on top of it
        // The way out: the laptop (a new process: connected to the server as it is now)
        // sends its frames back; then the tablet syncs.
        try laptop.close()
        try home.reopened("laptop").sync(restoringServer: true)
        let report = try tablet.sync()
        #expect(report.otherDevices == 1)
        #expect(titles(tablet) == ["p1 Lego set", "p2 Scarf"])
    }

    @Test("A server showing two devices two forks, each consistent in itself, is caught when one reads the other's head")
    func forkShownToTwoDevicesIsCaught() throws {
        let home = try Household()
        let (laptop, desktop) = try home.laptopAndDesktop()
        let id = try #require(laptop.sealed?.header.journalID)
        let shared = try home.serverFrames(laptop).count

        // From here the server shows the desktop a copy of its own: a fork.
        let fork = try home.server.forked()
        var environment = home.environment("desktop")
        environment.remoteLocation = { _ in fork }
        try desktop.close()
        let forked = try home.reopened("desktop", environment: environment)

        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        try laptop.sync()
        // While it hides the laptop's head, the desktop sees nothing wrong.
        var hidden: [[UInt8]: [UInt8]] = [:]
        home.server.alterDeviceHeads(of: id) { heads in
            hidden = heads
            heads = [:]
        }
        try forked.perform(.addPresent(recipient: "Mum", title: "Scarf"))
        try forked.sync()
        #expect(try forked.sync().otherDevices == 0)
        home.server.alterDeviceHeads(of: id) { heads in heads.merge(hidden) { mine, _ in mine } }

        // Each device's next sync reads the other's head, and its frame there differs.
        let atDesktop = try #require(serviceError { try forked.sync() })
        #expect(atDesktop.exitCode == 1)
        guard case .remoteForked(_, let sequence) = atDesktop.code else {
            Issue.record("expected remoteForked, got \(atDesktop.code)")
            return
        }
        #expect(sequence > UInt64(shared))
        // The laptop finds the desktop's head beyond what the server shows it.
        try laptop.perform(.addPresent(recipient: "Gran", title: "Kite"))
        let atLaptop = try #require(serviceError { try laptop.sync() })
        #expect(atLaptop.exitCode == 1)
        if case .remoteHidesFrames = atLaptop.code {} else { Issue.record("expected remoteHidesFrames, got \(atLaptop.code)") }
    }

    @Test("A device head the server made or altered is refused: it does not authenticate under the journal's keys")
    func forgedDeviceHeadIsRefused() throws {
        let home = try Household()
        let laptop = try home.firstDevice()
        let desktop = try home.clonedDevice("desktop")
        try desktop.sync()
        #expect(try laptop.sync().otherDevices == 1)
        let id = try #require(laptop.sealed?.header.journalID)
        // One bit of the desktop's head (its sequence number) changed.
        home.server.alterDeviceHeads(of: id) { heads in
            for (device, record) in heads where device != laptop.remote?.record.device {
                var altered = record
                altered[40] ^= 1
                heads[device] = altered
            }
        }
        let error = try #require(serviceError { try laptop.sync() })
        #expect(error.exitCode == 1)
        if case .remoteForgedDeviceHead = error.code {} else { Issue.record("expected remoteForgedDeviceHead, got \(error.code)") }
    }

    @Test("A change sent on its own (nothing heard from the server) is remembered as shared once the session ends")
    func sendOnlySyncIsRememberedAtSignOut() throws {
        let home = try Household()
        let laptop = try home.firstDevice()
        let id = try #require(laptop.sealed?.header.journalID)
        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        let report = try laptop.sync()
        #expect(report.sent == 1 && report.received == 0)
        let sent = try #require(laptop.sealed?.head)
        let directory = home.sandbox.root + "/state-laptop"
        let before = try #require(RemoteRecord.read(from: directory, journalID: id, journalPath: home.path("laptop")))
        #expect(before.shared.sequence < sent.sequence)  // kept in memory meanwhile
        try laptop.signOut()
        let after = try #require(RemoteRecord.read(from: directory, journalID: id, journalPath: home.path("laptop")))
        #expect(after.shared == sent)
        #expect(after.device == before.device)
    }

    @Test("The server holds no name, title or note in clear, and no password")
    func serverHoldsOnlyCiphertext() throws {
        let home = try Household()
        let laptop = try home.firstDevice()
        try laptop.perform(
            .addPresent(recipient: "Grandmother Rosalind", title: "Telescope for stargazing", notes: "hidden in the attic"))
        try laptop.sync()
        let everything = try home.serverFrames(laptop).flatMap { $0 }
        for secret in ["Alice", "Grandmother Rosalind", "Telescope for stargazing", "hidden in the attic", "correct horse"] {
            #expect(!occurs(Array(secret.utf8), in: everything), "\(secret) is on the server in clear")
        }
    }

    @Test("A second process on the file carries on after a sync in the first merged and replaced the journal")
    func secondProcessFollowsAMerge() throws {
        let home = try Household()
        let laptop = try home.firstDevice()
        let desktop = try home.clonedDevice("desktop")
        try desktop.sync()
        let second = try home.reopened("laptop")
        try laptop.sync()
        try second.refresh()

        try desktop.perform(.addPresent(recipient: "Gran", title: "Kite"))
        try desktop.sync()
        try laptop.perform(.addPresent(recipient: "Mum", title: "Scarf"))
        #expect(try laptop.sync().received > 0)  // merged: the file was replaced

        // The second process's next append finds its file replaced: nothing acknowledged
        // there; it opens the merged journal and decides again on it.
        try second.perform(.addPresent(recipient: "Ann", title: "Book"))
        #expect(titles(second) == ["p1 Kite", "p2 Scarf", "p3 Book"])
        try laptop.refresh()
        #expect(titles(laptop) == titles(second))
        try laptop.sync()
        try desktop.sync()
        #expect(titles(desktop) == titles(second))
        #expect(try Self.localHashes(desktop) == Self.localHashes(laptop))
    }

    @Test("A change acknowledged offline survives the process ending and reaches the server at the next sync")
    func offlineChangeSurvivesRestart() throws {
        let home = try Household()
        let laptop = try home.firstDevice()
        home.server.isReachable = false
        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        try laptop.close()
        home.server.isReachable = true
        let again = try home.reopened("laptop")
        try again.sync()
        let desktop = try home.clonedDevice("desktop")
        #expect(titles(desktop) == ["p1 Lego set"])
    }
}

extension PresentID {
    func next() throws -> PresentID { try #require(PresentID(number: number + 1)) }
}

/// SPEC §12's promise as a property: any interleaving of commands on two or three devices,
/// with the server going away and coming back, ends — once every device has synced — in
/// one state on every device, equal to the fold of the shared chain, with every add that
/// was acknowledged still there.
@Suite struct DeviceInterleavingTests {
    @Test("Random commands on 2–3 devices with random outages converge to the fold of one shared chain", arguments: 0..<12)
    func interleavingsConverge(seed: UInt64) throws {
        var random = TestRandom(seed: 0xD3_1CE5 &+ seed)
        let home = try DevicesTests.Household()
        var devices = [try home.firstDevice("d0")]
        let count = 2 + Int(seed % 2)
        for index in 1..<count { devices.append(try home.clonedDevice("d\(index)")) }
        var acknowledged: [String] = []
        var merges = 0

        for step in 0..<60 {
            if random.next() % 10 == 0 { home.server.isReachable.toggle() }
            let device = devices[Int(random.next() % UInt64(devices.count))]
            let ids = Array(device.state.presents.keys)
            let removed = Array(device.state.removedPresents.keys)
            let pick = { (ids: [PresentID], random: inout TestRandom) in ids[Int(random.next() % UInt64(ids.count))] }
            do {
                switch random.next() % 7 {
                case 0, 1:
                    let title = "gift-\(seed)-\(step)"
                    try device.perform(.addPresent(recipient: ["Mum", "Dad", "Gran"][Int(random.next() % 3)], title: title))
                    acknowledged.append(title)
                case 2 where !ids.isEmpty:
                    try device.perform(
                        .editPresent(id: pick(ids, &random), changes: [.notes("note \(step)"), .price(Money(parsing: "\(step)"))]))
                case 3 where !ids.isEmpty:
                    let status = PresentStatus.allCases[Int(random.next() % 4)]
                    try device.perform(.markPresent(id: pick(ids, &random), status: status))
                case 4 where !ids.isEmpty:
                    try device.perform(.removePresent(id: pick(ids, &random)))
                case 5 where !removed.isEmpty:
                    try device.perform(.restorePresent(id: pick(removed, &random)))
                default:
                    let report = try device.sync()
                    if report.received > 0, report.sent > 0 { merges += 1 }
                }
            } catch let error as ServiceError {
                switch error.code {
                case .domain: break  // refused, nothing acknowledged
                case .journal(let failure):
                    guard case .unreachable = failure.code else { throw error }
                default: throw error
                }
            }
        }

        home.server.isReachable = true
        for _ in 0..<2 {
            for device in devices {
                let report = try device.sync()
                if report.received > 0, report.sent > 0 { merges += 1 }
            }
        }
        // Each run has devices that moved apart and were merged (not only sends and takes).
        #expect(merges > 0, "seed \(seed): no merge happened")
        let reference = devices[0]
        for device in devices.dropFirst() {
            #expect(device.state.presents == reference.state.presents, "seed \(seed)")
            #expect(device.state.removedPresents == reference.state.removedPresents, "seed \(seed)")
            #expect(try DevicesTests.localHashes(device) == DevicesTests.localHashes(reference), "seed \(seed)")
        }
        #expect(try home.serverFrames(reference).count == DevicesTests.localHashes(reference).count)
        // The fold of the shared chain, by a device that never saw any of it happen.
        let fresh = try home.clonedDevice("fresh")
        #expect(fresh.state.presents == reference.state.presents, "seed \(seed)")
        let titles = Set((fresh.state.presents.values.map(\.title)) + fresh.state.removedPresents.values.map(\.title))
        for title in acknowledged {
            #expect(titles.contains(title), "seed \(seed): acknowledged add \(title) was lost")
        }
    }
}
