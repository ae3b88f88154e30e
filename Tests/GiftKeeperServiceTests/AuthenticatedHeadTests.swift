import GiftKeeperCrypto
import GiftKeeperJournal
import Testing

@testable import GiftKeeperSealing
@testable import GiftKeeperService

/// The one authenticated head, in its two layouts: the head remembered on this machine
/// (SPEC §5) and the head a device posts on a server (SPEC §12). Each keeps the bytes it
/// had when it was a type of its own, and neither reads as the other.
@Suite struct AuthenticatedHeadTests {
    let journalID = [UInt8](repeating: 9, count: 16)
    let device = [UInt8](repeating: 3, count: 16)
    let head = JournalHead(sequence: 42, hash: [UInt8](repeating: 5, count: 32))
    let dataKey: SecureBytes

    init() throws {
        dataKey = try password(String(repeating: "k", count: 32))
    }

    @Test func eachLayoutKeepsItsMagicAndLength() throws {
        let remembered = try AuthenticatedHead(journalID: journalID, device: nil, head: head, epochWrapSequence: 1)
            .encoded(dataKey: dataKey)
        let posted = try AuthenticatedHead(journalID: journalID, device: device, head: head, epochWrapSequence: 1)
            .encoded(dataKey: dataKey)
        #expect(remembered.count == 104 && remembered.starts(with: Array("GKHEAD01".utf8)))
        #expect(posted.count == 120 && posted.starts(with: Array("GKDEVHD1".utf8)))
        #expect(Array(posted[24..<40]) == device)
    }

    @Test func aRecordReadsOnlyAsItsOwnKindJournalAndDevice() throws {
        let key: (UInt64) -> SecureBytes? = { $0 == 1 ? dataKey : nil }
        let posted = AuthenticatedHead(journalID: journalID, device: device, head: head, epochWrapSequence: 1)
        let remembered = AuthenticatedHead(journalID: journalID, device: nil, head: head, epochWrapSequence: 1)
        let postedBytes = try posted.encoded(dataKey: dataKey)
        let rememberedBytes = try remembered.encoded(dataKey: dataKey)
        #expect(AuthenticatedHead.read(postedBytes, journalID: journalID, device: device, dataKey: key) == .verified(posted))
        #expect(AuthenticatedHead.read(rememberedBytes, journalID: journalID, device: nil, dataKey: key) == .verified(remembered))
        #expect(AuthenticatedHead.read(postedBytes, journalID: journalID, device: nil, dataKey: key) == .forged)
        #expect(AuthenticatedHead.read(rememberedBytes, journalID: journalID, device: device, dataKey: key) == .forged)
        let otherDevice = [UInt8](repeating: 4, count: 16)
        #expect(AuthenticatedHead.read(postedBytes, journalID: journalID, device: otherDevice, dataKey: key) == .forged)
        let otherJournal = [UInt8](repeating: 8, count: 16)
        #expect(AuthenticatedHead.read(rememberedBytes, journalID: otherJournal, device: nil, dataKey: key) == .forged)
        #expect(AuthenticatedHead.read(postedBytes, journalID: journalID, device: device) { _ in nil } == .keyMissing(posted))
        var altered = postedBytes
        altered[44] ^= 1  // the sequence number
        #expect(AuthenticatedHead.read(altered, journalID: journalID, device: device, dataKey: key) == .forged)
        var later = rememberedBytes
        later[7] = UInt8(ascii: "2")  // GKHEAD02: a later version's layout
        #expect(AuthenticatedHead.read(later, journalID: journalID, device: nil, dataKey: key) == .unknownLayout)
    }

    @Test func aPostedHeadCarriesWhatItsDeviceSawOfTheOthersUnderItsMAC() throws {
        let key: (UInt64) -> SecureBytes? = { $0 == 1 ? dataKey : nil }
        let seen = [
            AuthenticatedHead.SeenHead(
                device: [UInt8](repeating: 6, count: 16), head: JournalHead(sequence: 40, hash: [UInt8](repeating: 1, count: 32))),
            AuthenticatedHead.SeenHead(
                device: [UInt8](repeating: 7, count: 16), head: JournalHead(sequence: 41, hash: [UInt8](repeating: 2, count: 32))),
        ]
        let posted = AuthenticatedHead(journalID: journalID, device: device, head: head, epochWrapSequence: 1, seen: seen)
        let bytes = try posted.encoded(dataKey: dataKey)
        #expect(bytes.starts(with: Array("GKDEVHD2".utf8)) && bytes.count == 120 + 2 + 2 * 56)
        #expect(AuthenticatedHead.read(bytes, journalID: journalID, device: device, dataKey: key) == .verified(posted))
        var altered = bytes
        altered[88 + 2 + 16] ^= 1  // the first seen head's sequence number
        #expect(AuthenticatedHead.read(altered, journalID: journalID, device: device, dataKey: key) == .forged)
        #expect(AuthenticatedHead.read(Array(bytes.dropLast(57)), journalID: journalID, device: device, dataKey: key) == .forged)
    }
}
