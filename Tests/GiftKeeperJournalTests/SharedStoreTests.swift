import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperRemote
import GiftKeeperTestSupport
import Testing

extension JournalTestSuite {
    /// What a server's copy of a journal adds to a store (``SharedFrameStore``): the devices'
    /// head board, and a read of everything the server holds now. The memory server and the
    /// sync service behave the same.
    @Suite struct SharedStoreTests {

        /// The state directories of the service's devices, kept while the test runs.
        final class Devices {
            var directories: [TemporaryDirectory] = []
        }
        let devices = Devices()

        func server(_ kind: StoreKind) throws -> any RemoteLocation {
            switch kind {
            case .service:
                let directory = try TemporaryDirectory(prefix: "giftkeeper-shared-store")
                devices.directories.append(directory)
                return try ServiceRemote.testDevice(url: try ServiceFixture.requireURL(), stateDirectory: directory.path, deviceName: "shared")
            default:
                return MemoryRemote()
            }
        }

        /// A new journal's header, as a device's first push sends it.
        func newHeader() throws -> JournalHeader {
            try MemoryFrameStore(path: "device").header
        }

        @Test("Each device's posted head replaces its previous one; every handle reads them all", arguments: [StoreKind.memory])
        func boardKeepsOneHeadPerDevice(kind: StoreKind) throws {
            let remote = try server(kind)
            let header = try newHeader()
            let first = try remote.create(header: header)
            #expect(try first.deviceHeads().isEmpty)
            let laptop = [UInt8](repeating: 1, count: 16)
            let desktop = [UInt8](repeating: 2, count: 16)
            try first.postDeviceHead(device: laptop, record: [1, 1])
            try first.postDeviceHead(device: desktop, record: [2])
            try first.postDeviceHead(device: laptop, record: [1, 2, 3])
            let second = try #require(try remote.open(journalID: header.journalID))
            #expect(try second.deviceHeads() == [laptop: [1, 2, 3], desktop: [2]])
            // Another journal on the same server has a board of its own.
            let other = try remote.create(header: try newHeader())
            #expect(try other.deviceHeads().isEmpty)
        }

        @Test("fetch takes in what another device appended, without waiting to hear of it", arguments: [StoreKind.memory])
        func fetchReadsEverythingNow(kind: StoreKind) throws {
            let remote = try server(kind)
            let header = try newHeader()
            let first = try remote.create(header: header)
            let second = try #require(try remote.open(journalID: header.journalID))
            try appendBatch(first, [[1], [2], [3]])
            try second.fetch()
            #expect(second.head == first.head)
            #expect(try readFrames(second).map(\.payload) == [[1], [2], [3]])
        }

        @Test(
            "A copy written from the frames a device took in is the server's chain byte for byte, and opens as written",
            arguments: [StoreKind.memory])
        func copyOfStoredFrames(kind: StoreKind) throws {
            let remote = try server(kind)
            let header = try newHeader()
            let sent = payloads(sizes: [40, 1, 300, 17])
            let kinds: [FrameKind] = [.keyWrap, .dataSealed, .dataSealed, .publicSealed]
            try appendBatch(try remote.create(header: header), sent, kinds: kinds)
            let device = try #require(try remote.open(journalID: header.journalID))
            let stored = try device.storedFrames()
            var encoded = FrameBatch(after: JournalHead(sequence: 0, hash: header.genesisHash), path: "encoded")
            for (payload, kind) in zip(sent, kinds) { try encoded.add(kind: kind, payload: payload) }
            #expect(stored.bytes == encoded.bytes)
            #expect(stored.head == device.head)

            let directory = try TemporaryDirectory()
            let copy = try Journal.createCopy(at: directory.path + "/copy.journal", header: header, frames: stored)
            let opened = try Journal.open(at: directory.path + "/copy.journal", access: .readOnly)
            #expect(copy.head == device.head && opened.head == device.head)
            #expect(copy.frameIndex == opened.frameIndex && opened.frameIndex.keyWraps.count == 1)
            #expect(copy.size == opened.size && copy.frameCount == 4)
            #expect(try readFrames(opened).map(\.payload) == sent)
            // A batch that does not start at the header's genesis hash is no copy of it.
            #expect(throws: JournalError.self) {
                try Journal.createCopy(at: directory.path + "/other.journal", header: try newHeader(), frames: stored)
            }
        }
    }
}

extension JournalTestSuite.SharedStoreTests {
    /// The same checks on the sync service, through the test service.
    @Suite(.needsService) struct OnTheService {
        let checks = JournalTestSuite.SharedStoreTests()

        @Test func boardKeepsOneHeadPerDevice() throws { try checks.boardKeepsOneHeadPerDevice(kind: .service) }
        @Test func fetchReadsEverythingNow() throws { try checks.fetchReadsEverythingNow(kind: .service) }
        @Test func copyOfStoredFrames() throws { try checks.copyOfStoredFrames(kind: .service) }
    }
}
