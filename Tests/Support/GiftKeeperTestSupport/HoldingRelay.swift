import Foundation
import Glibc

/// A TCP relay on loopback to `port`: it forwards both ways until ``hold()``, then holds
/// every byte (read and never delivered) on the connections it has and the ones it
/// accepts, as a link that went silent; ``release()`` ends the held connections (their
/// peers gave up on them) and forwards again.
public final class HoldingRelay: @unchecked Sendable {
    private let listener: Int32
    public let port: Int
    private let target: Int
    private let lock = NSLock()
    private var holding = false
    private var held: [Int32] = []
    private var closed = false

    public init(to target: Int) throws {
        self.target = target
        let (descriptor, port) = try Self.listen(port: 0)
        listener = descriptor
        self.port = port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    public func hold() { lock.withLock { holding = true } }

    public func release() {
        let ended = lock.withLock {
            holding = false
            defer { held = [] }
            return held
        }
        for descriptor in ended { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    public func close() {
        lock.withLock { closed = true }
        shutdown(listener, Int32(SHUT_RDWR))
        _ = Glibc.close(listener)
        release()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0, !lock.withLock({ closed }) else { return }
            guard let upstream = try? Self.connect(to: target) else {
                _ = Glibc.close(client)
                continue
            }
            Thread.detachNewThread { [self] in pump(from: client, to: upstream) }
            Thread.detachNewThread { [self] in pump(from: upstream, to: client) }
        }
    }

    /// Copies `source` to `destination` until either ends; while holding, what is read is
    /// kept back, and the connection is ended at the release.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            let isHeld = lock.withLock {
                if holding { held += [source, destination] }
                return holding
            }
            if isHeld { continue }
            let sent = buffer.withUnsafeBytes { send(destination, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            guard sent == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A socket listening on 127.0.0.1:`port` (0: one the system chooses), and its port.
    public static func listen(port: Int) throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, bound == 0, Glibc.listen(descriptor, 64) == 0 else {
            throw TestSupportError("could not listen on 127.0.0.1:\(port)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func connect(to port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else {
            _ = Glibc.close(descriptor)
            throw TestSupportError("the relay could not reach 127.0.0.1:\(port)")
        }
        return descriptor
    }
}
