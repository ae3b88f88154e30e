import Benchmark
import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService

// GiftKeeper's performance suite (issue 5; docs/performance.md holds the figures and targets).
// Run from the repository root with `make bench`, or in Benchmarks/ with
// `swift package --disable-sandbox benchmark [--filter REGEX]`.
//
// Names start with the group the targets compare: "Crypto bound", "Replay", "Export",
// "Append", "Command", "Import", "Frame", "Codec".

/// State shared between a benchmark's setup and its closure (one benchmark per process).
final class Shared: @unchecked Sendable {
    nonisolated(unsafe) static var journalPath = ""
    nonisolated(unsafe) static var service: GiftKeeperService?
    nonisolated(unsafe) static var journal: Journal?
    nonisolated(unsafe) static var document: [UInt8] = []
    nonisolated(unsafe) static var scratch = ""
    nonisolated(unsafe) static var counter = 0
    nonisolated(unsafe) static var bound: CryptoBound?
}

private func nanoseconds(_ body: () throws -> Void) rethrows -> Int {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Int(DispatchTime.now().uptimeNanoseconds - start)
}

let samplePresent = Fixtures.present(12_345)
let sampleEvent = Event(at: Fixtures.epoch, .presentAdded(
    id: samplePresent.id, recipient: samplePresent.recipient, title: samplePresent.title,
    notes: samplePresent.notes, price: samplePresent.price, occasion: samplePresent.occasion))

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 100_000)

    // MARK: Codec and one frame

    Benchmark("Codec encode presentAdded", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(EventCodec.encode(sampleEvent))
        }
    }

    let encoded = EventCodec.encode(sampleEvent)
    Benchmark("Codec decode presentAdded", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? EventCodec.decode(encoded))
        }
    }

    // swiftlint:disable:next force_try
    let dataKey = try! AEAD.generateKey()
    let additionalData = [UInt8](repeating: 7, count: 60)
    let previousHash = [UInt8](repeating: 9, count: 32)
    Benchmark("Frame seal: encode + AEAD seal + header check + frame hash", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var frame = [UInt8](repeating: 0, count: 21)
        for _ in benchmark.scaledIterations {
            let sealed = try AEAD.seal(EventCodec.encode(sampleEvent), key: dataKey, additionalData: additionalData)
            frame.removeSubrange(21...)
            frame += sealed
            blackHole(frame.withUnsafeBytes { all in
                previousHash.withUnsafeBytes { key in
                    (Blake2b.hash(UnsafeRawBufferPointer(rebasing: all[0..<13]), key: key),
                     Blake2b.hash(all, key: key))
                }
            })
        }
    }

    // swiftlint:disable:next force_try
    let sealed = try! AEAD.seal(encoded, key: dataKey, additionalData: additionalData)
    Benchmark("Frame open: AEAD open + decode (reused buffers)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var output = [UInt8](repeating: 0, count: encoded.count)
        try sealed.withUnsafeBytes { sealedBytes in
            try additionalData.withUnsafeBytes { ad in
                try output.withUnsafeMutableBytes { out in
                    for _ in benchmark.scaledIterations {
                        try AEAD.open(sealedBytes, key: dataKey, additionalData: ad, into: out)
                        blackHole(try EventCodec.decode(UnsafeRawBufferPointer(out)))
                    }
                }
            }
        }
    }

    // MARK: Crypto bound: what a replay cannot go below

    for presents in [10_000, 1_000_000] {
        let label = presents == 10_000 ? "10k" : "1M"
        Benchmark(
            "Crypto bound \(label) frames: BLAKE2b frame hash + AEAD open",
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .custom("ns per frame")],
                warmupIterations: 1, maxDuration: .seconds(20), maxIterations: presents == 10_000 ? 200 : 5,
                setup: {
                    Shared.bound = try CryptoBound(journalPath: try Fixtures.journal(presents: presents))
                })
        ) { benchmark in
            guard let bound = Shared.bound else { return }
            benchmark.startMeasurement()
            let elapsed = nanoseconds { bound.run() }
            benchmark.stopMeasurement()
            benchmark.measurement(.custom("ns per frame"), elapsed / bound.frameCount)
        }
    }

    // MARK: Replay: open (verifies the chain) + login (KDF at test minimum, authenticate, decode, fold)

    for presents in [10_000, 1_000_000] {
        let label = presents == 10_000 ? "10k" : "1M"
        Benchmark(
            "Replay \(label) events: open + login (KDF test minimum)",
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, .custom("ns per event")],
                warmupIterations: 1, maxDuration: .seconds(30), maxIterations: presents == 10_000 ? 200 : 5,
                setup: { Shared.journalPath = try Fixtures.journal(presents: presents) })
        ) { benchmark in
            let password = Fixtures.passwordBytes()
            let service = GiftKeeperService(journalPath: Shared.journalPath, environment: Fixtures.environment())
            benchmark.startMeasurement()
            let elapsed = try nanoseconds {
                try service.open()
                try service.login(password: password)
            }
            benchmark.stopMeasurement()
            let frames = service.state.eventCount
            benchmark.measurement(.custom("ns per event"), elapsed / max(frames, 1))
            blackHole(service.state.presents.count)
            try service.close()
        }
    }

    Benchmark("KDF test minimum (subtract from replay)", configuration: .init(metrics: [.wallClock])) { benchmark in
        let password = Fixtures.passwordBytes()
        let salt = try PasswordKDF.generateSalt()
        for _ in benchmark.scaledIterations {
            blackHole(try PasswordKDF.deriveKey(password: password, salt: salt, parameters: .testMinimum))
        }
    }

    // MARK: Export (signed in; the export document is built in memory, then a stateExported event appended)

    for presents in [10_000, 1_000_000] {
        let label = presents == 10_000 ? "10k" : "1M"
        Benchmark(
            "Export \(label) presents",
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, .custom("ns per present")],
                warmupIterations: 1, maxDuration: .seconds(30), maxIterations: presents == 10_000 ? 200 : 3,
                setup: {
                    let service = GiftKeeperService(
                        journalPath: try Fixtures.journal(presents: presents), environment: Fixtures.environment())
                    try service.open()
                    try service.login(password: Fixtures.passwordBytes())
                    Shared.service = service
                },
                teardown: {
                    try Shared.service?.close()
                    Shared.service = nil
                })
        ) { benchmark in
            guard let service = Shared.service else { return }
            var sink = CountingExport()
            let elapsed = try nanoseconds {
                try service.export(to: &sink)
            }
            blackHole(sink.size)
            benchmark.measurement(.custom("ns per present"), elapsed / presents)
        }
    }

    // MARK: Append: a bare 300-byte frame, and one state-changing command

    Benchmark(
        "Append one 300-byte frame + fsync",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .syscalls],
            maxDuration: .seconds(5), maxIterations: 5_000,
            setup: {
                Shared.scratch = Fixtures.scratchDirectory("append")
                Shared.journal = try Journal.create(at: Shared.scratch + "/append.journal")
            },
            teardown: {
                Shared.journal = nil
                try? FileManager.default.removeItem(atPath: Shared.scratch)
            })
    ) { benchmark in
        guard let journal = Shared.journal else { return }
        // 21-byte header + 247-byte payload + 32-byte hash = 300 bytes on disk.
        let payload = [UInt8](repeating: 0xA5, count: 247)
        for _ in benchmark.scaledIterations {
            try journal.append { batch in try batch.add(kind: .dataSealed, payload: payload) }
        }
    }

    Benchmark(
        "Command add present: decide + seal + append + fsync",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .syscalls],
            maxDuration: .seconds(5), maxIterations: 5_000,
            setup: {
                Shared.scratch = Fixtures.scratchDirectory("command")
                Shared.service = try Fixtures.newSignedInService(at: Shared.scratch + "/command.journal")
            },
            teardown: {
                try Shared.service?.close()
                Shared.service = nil
                try? FileManager.default.removeItem(atPath: Shared.scratch)
            })
    ) { benchmark in
        guard let service = Shared.service else { return }
        for _ in benchmark.scaledIterations {
            Shared.counter += 1
            try service.perform(.addPresent(
                recipient: "Mum", title: "Blue scarf \(Shared.counter)", price: Money(minorUnits: 2_500)))
        }
    }

    // MARK: Import with group commit (1,024 events per fsync)

    for presents in [10_000, 100_000] {
        let label = presents == 10_000 ? "10k" : "100k"
        Benchmark(
            "Import \(label) presents (group commit)",
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .custom("events per s", polarity: .prefersLarger)],
                warmupIterations: 1, maxDuration: .seconds(20), maxIterations: presents == 10_000 ? 50 : 5,
                setup: {
                    Shared.scratch = Fixtures.scratchDirectory("import-\(label)")
                    Shared.document = Fixtures.document(1...presents)
                },
                teardown: { try? FileManager.default.removeItem(atPath: Shared.scratch) })
        ) { benchmark in
            Shared.counter += 1
            let path = Shared.scratch + "/import-\(Shared.counter).journal"
            let service = try Fixtures.newSignedInService(at: path)
            benchmark.startMeasurement()
            let elapsed = try nanoseconds {
                let summary = try service.importDocument(Shared.document)
                blackHole(summary)
            }
            benchmark.stopMeasurement()
            benchmark.measurement(.custom("events per s", polarity: .prefersLarger), Int(Double(presents) * 1e9 / Double(elapsed)))
            try service.close()
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}

/// An export destination that only counts the bytes (the document's cost, not a file's).
struct CountingExport: ExportWriting {
    var size = 0
    mutating func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError) { size += chunk.count }
    mutating func finish() throws(ServiceError) {}
}
