import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperService

/// A shell waiting at its prompt takes in another device's change and shows it before it
/// writes what it remembers of the server (``RemoteRecord``: two fsyncs): the frames are in
/// the journal already, and the record is written at the shell's next look, or on closing.
extension DevicesTests {
    @Test("Frames received while idle: the server's record is written by the next look, and on closing")
    func receivedRecordWrittenNextLook() throws {
        let home = try Household()
        let (laptop, desktop) = try home.laptopAndDesktop(after: .addPresent(recipient: "Dad", title: "Lego set"))
        let directory = try #require(desktop.environment.stateDirectory)
        let journalID = try #require(desktop.sealed?.header.journalID)
        let onDisk = { RemoteRecord.read(from: directory, journalID: journalID, journalPath: desktop.journalPath)?.shared }
        let before = try #require(onDisk())

        try laptop.perform(.addPresent(recipient: "Mum", title: "Blue scarf"))
        try laptop.sync()
        #expect(try desktop.syncIfNeeded()?.received == 1)
        let head = try #require(desktop.sealed?.head)
        #expect(onDisk() == before, "written before the change was shown")
        #expect(try desktop.syncIfNeeded() == nil)
        #expect(onDisk() == head)

        try laptop.perform(.addPresent(recipient: "Mum", title: "Red hat"))
        try laptop.sync()
        #expect(try desktop.syncIfNeeded()?.received == 1)
        let newer = try #require(desktop.sealed?.head)
        try desktop.close()
        #expect(onDisk() == newer)
    }
}
