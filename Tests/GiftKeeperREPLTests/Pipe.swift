import Glibc

/// A pipe that a background thread fills, for reading through a file descriptor.
final class TestPipe {
    let readEnd: Int32
    private let writeEnd: Int32
    private var writer: TestThread?

    /// Starts writing `bytes` (which may exceed the pipe's capacity) and closes the write end.
    init(_ bytes: [UInt8]) {
        // A writer cut short by `deinit` must get EPIPE, not kill the test process.
        _ = signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        readEnd = fds[0]
        writeEnd = fds[1]
        let fd = writeEnd
        writer = TestThread {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            _ = close(fd)
        }
    }

    convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    deinit {
        _ = close(readEnd)
        writer?.join()
    }
}

/// A minimal joinable pthread.
final class TestThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void
    private var joined = false

    init(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let me = Unmanaged<TestThread>.fromOpaque(raw).takeRetainedValue()
                me.body()
                return nil
            }, context)
        precondition(result == 0)
    }

    func join() {
        guard !joined else { return }
        joined = true
        _ = pthread_join(thread, nil)
    }
}
