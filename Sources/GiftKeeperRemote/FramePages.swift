import Foundation
import GiftKeeperJournal
import GiftKeeperWire
import NIOHTTP1

/// A page of frames as a device takes it in: what it follows, the journal's head and the
/// service's epoch when it was read, and its frames, each its own bytes.
struct ReceivedPage {
    var after: UInt64
    var head: WireHead
    var epoch: Data?
    var frames: [[UInt8]]
}

extension ServiceConnection {
    /// The page of frames of `journalID` after `after` (at most a page's worth), asked for
    /// in binary (``BinaryFramePage``); a service that answers JSON (``FramePage``) is read
    /// too. Nil when the service holds no such journal for this account.
    /// - Throws: ``RemoteFailure/unexpectedAnswer`` for an answer that is neither, whole.
    func framePage(_ journalID: [UInt8], after: UInt64, deadline: Duration?) throws(JournalError) -> ReceivedPage? {
        let path = Route.frames(journalID, after: after, limit: Wire.maximumPageFrames)
        let (status, body) = try send(.GET, path, body: Empty?.none, deadline: deadline, accept: BinaryFramePage.mediaType)
        if status == 404 { return nil }
        try check(status, body)
        let binary = body.withUnsafeBytes { bytes in
            BinaryFramePage.decode(bytes).map { page in
                ReceivedPage(after: page.after, head: page.head, epoch: page.epoch, frames: page.frames.map { Array(bytes[$0]) })
            }
        }
        if let binary { return binary }
        guard let page = try? JSONDecoder().decode(FramePage.self, from: body) else {
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
        return ReceivedPage(after: page.after, head: page.head, epoch: page.epoch, frames: page.frames.map { Array($0) })
    }
}
