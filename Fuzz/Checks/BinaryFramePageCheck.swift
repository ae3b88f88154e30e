import Foundation
import GiftKeeperWire

/// A page of frames in binary (``BinaryFramePage``) on any bytes, as a device reads an
/// answer of the service: it never reads past the bytes; what decodes is exactly one
/// page — its frames lie in order inside the bytes, and the page encodes back to the very
/// same bytes (there is one way to write each page, and nothing of the input is left
/// over) — and its frames are taken in as a JSON page's are: only those that verify, in
/// order, the first that does not refused (``WireMessagesCheck``).
enum BinaryFramePageCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        guard let page = input.withUnsafeBytes({ BinaryFramePage.decode($0) }) else { return }
        var end = 0
        for frame in page.frames {
            try require(frame.lowerBound >= end + 4 && frame.upperBound <= input.count, "a frame is not where its length says")
            end = frame.upperBound
        }
        let frames = page.frames.map { Array(input[$0]) }
        let again = BinaryFramePage.encode(
            FramePage(after: page.after, frames: frames.map { Data($0) }, head: page.head, epoch: page.epoch))
        try require(again == input, "a decoded page does not encode to the bytes it came from")
        try WireMessagesCheck.requireTakenInVerified(frames)
    }
}
