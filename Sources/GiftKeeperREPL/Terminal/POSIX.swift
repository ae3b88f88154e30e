import Glibc

/// The words for an `errno` value (`strerror`).
enum SystemErrorText {
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// Small checked wrappers over POSIX I/O that retry on `EINTR`.
enum POSIXIO {
    /// `read(2)`, retried on EINTR. Returns the byte count (0 at end of file) or `-errno`.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        while true {
            let result = Glibc.read(fd, buffer, count)
            if result >= 0 { return result }
            if errno == EINTR { continue }
            return -Int(errno)
        }
    }

    /// Writes all of `bytes` to `fd`, retrying on EINTR and short writes.
    /// Returns 0 or the `errno` of the failure.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard var pointer = bytes.baseAddress else { return 0 }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Glibc.write(fd, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            pointer += written
            remaining -= written
        }
        return 0
    }

    /// Writes `text` (UTF-8) to `fd`. Returns 0 or the `errno` of the failure.
    @discardableResult
    static func writeAll(_ fd: Int32, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }
}
