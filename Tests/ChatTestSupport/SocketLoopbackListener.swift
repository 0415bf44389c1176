import Glibc
import Testing

/// A listening TCP socket on 127.0.0.1 with a kernel-chosen port.
public struct SocketLoopbackListener: Sendable {
    public let descriptor: Int32
    public let port: UInt16

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(bound == 0)
        try #require(listen(fd, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// A loopback port nothing listens on now: the kernel's choice, bound, then released. Another
    /// process may take it before the caller binds it, so a server started on it must fail loudly
    /// when it cannot listen (see `InspIRCdServer` in CLITests).
    public static func freePort() throws -> UInt16 {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        return listener.port
    }

    public func accept() -> Int32 { Glibc.accept(descriptor, nil, nil) }
    public func close() { _ = Glibc.close(descriptor) }
}
