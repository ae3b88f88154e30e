import ArgumentParser
import Foundation
import GiftKeeperCrypto

/// `giftkeeper-bench-sync`: simulated devices for `make bench-sync` (scripts/bench-sync.sh,
/// docs/performance.md). Each device speaks the sync service's protocol as a real one
/// does — its own Ed25519 key, a bearer token, appends after an expected head, cursor reads,
/// a WebSocket of live changes — but holds its frames in memory and opens none (the service
/// never can either), so one process holds a thousand of them.
///
/// Figures go to standard output as `name=value` lines, for the script to set against their
/// bounds; progress to standard error.
@main
struct BenchSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "giftkeeper-bench-sync",
        abstract: "Simulated devices against giftkeeper-server, for make bench-sync.",
        subcommands: [DevicesCommand.self, AppendCostCommand.self])
}

struct ServiceOptions: ParsableArguments {
    @Option(name: .customLong("service"), help: "A service process's origin (https://127.0.0.1:PORT); repeat for several.")
    var origins: [String]

    @Option(name: .customLong("ca"), help: "The certificate authority the services' certificate is signed by (PEM).")
    var caFile: String

    @Option(help: "Bytes of each frame appended.")
    var frameBytes = 320
}

/// `devices`: many devices connected at once; A→B latency, nothing lost.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Journals of several devices each, every device's WebSocket open; time each change from A to B.")

    @OptionGroup var options: ServiceOptions

    @Option(help: "Journals (each its own account).")
    var journals = 250

    @Option(help: "Devices per journal.")
    var perJournal = 4

    @Option(help: "Appends per journal.")
    var rounds = 8

    @Option(help: "Appends a second over all journals.")
    var rate = 50.0

    @Flag(help: "Stop after signing in (`pause signed-in`) and after connecting (`pause connected`) until a line comes on standard input.")
    var checkpoints = false

    /// The latency (ms) a missed frame counts as.
    static let never = 1e6

    func run() async throws {
        try Sodium.ensureInitialized()
        let service = ServiceClient(caFile: options.caFile)
        let fleet = try Fleet(service: service, origins: options.origins, journals: journals, perJournal: perJournal)
        let started = ContinuousClock.now
        try await fleet.enrol()
        note("\(fleet.deviceCount) devices enrolled in \(journals) accounts in \(ContinuousClock.now - started)")
        if checkpoints { await pause("signed-in") }
        let sockets = try await fleet.connect()
        print("devices=\(fleet.deviceCount)")
        print("services=\(options.origins.count)")
        if checkpoints { await pause("connected") }
        note("trials: \(rounds) appends a journal, \(rate) a second")
        let outcome = try await fleet.run(rounds: rounds, rate: rate, frameBytes: options.frameBytes)
        for socket in sockets { socket.cancel() }
        // A frame no wake-up brought (the final read took it in) counts as never arriving.
        let missed = max(0, outcome.expectedSamples - outcome.samples.count)
        let all = outcome.samples.map(\.milliseconds) + Array(repeating: Self.never, count: missed)
        let crossNode = outcome.samples.filter(\.crossNode).map(\.milliseconds)
        print("appends=\(outcome.appends)")
        print("live_samples=\(outcome.samples.count)")
        print("live_expected=\(outcome.expectedSamples)")
        print("live_p50_ms=\(format(quantile(all, 0.5)))")
        print("live_p99_ms=\(format(quantile(all, 0.99)))")
        print("live_max_ms=\(format(all.max() ?? 0))")
        print("cross_node_samples=\(crossNode.count)")
        print("cross_node_p99_ms=\(format(quantile(crossNode, 0.99)))")
        print("devices_differing=\(outcome.devicesDiffering)")
        print("conflicts=\(outcome.conflicts)")
        print("read_failures=\(outcome.readFailures)")
        print("changes_heard=\(outcome.changesHeard)")
        print("sockets_opened=\(fleet.socketsOpened)")
        try await service.shutdown()
    }
}

/// `append-cost`: one device appending one frame at a time on a warm connection.
struct AppendCostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append-cost",
        abstract: "One device's appends, one frame each, one after another, then as many cursor reads; the round trip of each.")

    @OptionGroup var options: ServiceOptions

    @Option(help: "Appends timed (after 50 not timed).")
    var count = 500

    @Option(help: "The service process's id: its CPU time a request is printed (from /proc).")
    var servicePid: Int32?

    @Option(help: "The database's postmaster's id: the CPU time of it and its children a request is printed.")
    var postmasterPid: Int32?

    func run() async throws {
        try Sodium.ensureInitialized()
        let service = ServiceClient(caFile: options.caFile)
        let device = try Device(service: service, origin: options.origins[0], node: 0, journalID: try randomBytes(count: 16))
        try await device.enrol()
        try await device.createJournal()
        let cpu = ProcessCPU(service: servicePid, postmaster: postmasterPid)
        var times: [Double] = []
        var appendsStarted = cpu.sample()
        for index in 0..<(50 + count) {
            let frame = Data(try randomBytes(count: options.frameBytes))
            if index == 50 { appendsStarted = cpu.sample() }
            let start = ContinuousClock.now
            guard try await device.append(frame) else { throw BenchError("an append of a lone device conflicted") }
            if index >= 50 { times.append((ContinuousClock.now - start).milliseconds * 1_000) }
        }
        let appendsCPU = cpu.sample() - appendsStarted
        // The same requests' cost without a commit to flush: a cursor read that finds nothing new.
        var reads: [Double] = []
        let readsStarted = cpu.sample()
        for _ in 0..<count {
            let start = ContinuousClock.now
            try await device.read()
            reads.append((ContinuousClock.now - start).milliseconds * 1_000)
        }
        let readsCPU = cpu.sample() - readsStarted
        print("append_count=\(times.count)")
        print("append_p50_us=\(format(quantile(times, 0.5)))")
        print("append_mean_us=\(format(times.reduce(0, +) / Double(times.count)))")
        print("read_p50_us=\(format(quantile(reads, 0.5)))")
        // CPU time a request (µs), over all the timed ones: the bench client, the service, the database.
        for (name, spent) in [("append", appendsCPU), ("read", readsCPU)] {
            print("\(name)_client_cpu_us=\(format(spent.client * 1e6 / Double(count)))")
            print("\(name)_service_cpu_us=\(format(spent.service * 1e6 / Double(count)))")
            print("\(name)_database_cpu_us=\(format(spent.database * 1e6 / Double(count)))")
        }
        try await service.shutdown()
    }
}

/// A figure with one decimal.
func format(_ value: Double) -> String {
    String(format: "%.1f", value)
}

/// A line on standard error.
func note(_ text: String) {
    FileHandle.standardError.write(Data("bench-sync: \(text)\n".utf8))
}

/// Says `pause NAME` on standard output and waits for a line on standard input (read on a
/// thread of its own, so the devices' tasks go on meanwhile).
func pause(_ name: String) async {
    print("pause \(name)")
    fflush(nil)  // every stream: the lines printed before, then this one
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            _ = readLine()
            continuation.resume()
        }
    }
}
