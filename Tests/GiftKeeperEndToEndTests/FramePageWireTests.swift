import Foundation
import GiftKeeperCrypto
import GiftKeeperTestSupport
import GiftKeeperWire
import NIOHTTP1
import Testing

/// SPEC §12: a page of frames comes in binary to a device that asks for it
/// (``BinaryFramePage``), as JSON to anything else; both hold the same page. Spoken here in
/// the wire protocol itself, as the laptop's device.
extension ServiceEndToEndTests {
    @Test("a page of frames asked for in binary holds what its JSON holds: the frames, the head and the epoch")
    func binaryPagesHoldWhatJSONHolds() async throws {
        let laptop = try Sandbox()
        _ = try await sharedLaptop(laptop)
        let key = try deviceKey(of: laptop, service: url)
        let wire = try WireClient()
        defer { wire.close() }
        let nonce = try await wire.challenge(at: url)
        let proof = DeviceProof(
            publicKey: Data(key.publicKey), nonce: Data(nonce), signature: Data(try key.sign(Wire.proofMessage(nonce: nonce))))
        let signedIn = try await wire.post(url + Route.session, proof)
        #expect(signedIn.status == .ok, "\(signedIn.text)")
        let token = try JSONDecoder().decode(SessionToken.self, from: signedIn.body).token
        let journals = try JSONDecoder().decode(JournalList.self, from: try await wire.get(url + Route.journals, token: token).body)
        let id = try #require(journals.journals.first.map { Array($0) })

        // The whole journal, its second frame alone, and nothing after its head.
        for (after, limit, count) in [(0 as UInt64, 2_000, nil as Int?), (1, 1, 1), (1_000, 10, 0)] {
            let path = url + Route.frames(id, after: after, limit: limit)
            let json = try await wire.get(path, token: token)
            let binary = try await wire.get(path, token: token, accept: BinaryFramePage.mediaType)
            #expect(json.contentType == "application/json")
            #expect(binary.contentType == BinaryFramePage.mediaType)
            let page = try JSONDecoder().decode(FramePage.self, from: json.body)
            let read = binary.body.withUnsafeBytes { BinaryFramePage.decode($0) }
            let decoded = try #require(read, "\(binary.body.count) bytes")
            #expect(decoded.after == after && page.after == after)
            #expect(decoded.head == page.head && decoded.epoch == page.epoch && decoded.epoch != nil)
            #expect(decoded.frames.map { Data(binary.body[$0]) } == page.frames)
            #expect(page.frames.count == count ?? Int(page.head.sequence), "\(page.frames.count) frames after \(after)")
        }
    }
}
