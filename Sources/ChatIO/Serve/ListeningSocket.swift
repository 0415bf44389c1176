import Glibc

/// A non-blocking TCP listening socket: bound, listening, and handing out accepted connections as
/// ``TCPConnection``s.
///
/// Owns its descriptor and closes it in `deinit`. `SO_REUSEADDR` is set so that a restart does not
/// wait out `TIME_WAIT`; a port another process listens on is still refused (`EADDRINUSE`).
///
/// Confined to the server's loop thread.
final class ListeningSocket {
    let fileDescriptor: Int32
    /// The port actually bound (the kernel's choice when 0 was asked for).
    let port: UInt16
    /// `127.0.0.1:6667` or `[::1]:6667`.
    let address: String

    /// Resolves `host` and binds the first address it yields.
    ///
    /// - Throws: ``SocketError``: the resolver's, or the `socket`/`bind`/`listen` failure with a
    ///   message naming the address (`bind 127.0.0.1:6667: Address already in use (errno 98)`).
    init(host: String, port: UInt16, backlog: Int32 = 128) throws(SocketError) {
        guard let address = try SocketAddress.resolve(host: host, port: port).first else {
            throw SocketError(code: 0, message: "cannot resolve \(host)")
        }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.family, type, 0)
        guard descriptor >= 0 else { throw SocketError.lastError("socket for \(address)") }
        var one: Int32 = 1
        // SAFETY: passes a pointer to a local `Int32` and its size.
        _ = unsafe setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        // SAFETY: `withSocketAddress` lends a valid `sockaddr` of the stated length for the call.
        let bound = unsafe address.withSocketAddress { unsafe bind(descriptor, $0, $1) }
        guard bound == 0 else {
            let error = SocketError.lastError("bind \(address)")
            close(descriptor)
            throw error
        }
        guard listen(descriptor, backlog) == 0 else {
            let error = SocketError.lastError("listen on \(address)")
            close(descriptor)
            throw error
        }
        let actual = Self.localPort(descriptor) ?? port
        fileDescriptor = descriptor
        self.port = actual
        // `address` says port `port`; swap in the bound one (`…:0` → `…:40123`).
        let text = address.description
        let hostPart = text.lastIndex(of: ":").map { text[..<$0] } ?? Substring(text)
        self.address = "\(hostPart):\(actual)"
    }

    deinit {
        close(fileDescriptor)
    }

    /// What one ``accept()`` produced.
    enum Accepted {
        case connection(TCPConnection)
        /// No connection is waiting.
        case none
        /// Out of descriptors (`EMFILE`/`ENFILE`, …): the caller should pause accepting for a moment.
        case failed(SocketError)
    }

    /// Accepts one waiting connection, non-blocking, with `TCP_NODELAY` set.
    ///
    /// - Complexity: one `accept` (more after `EINTR` or an aborted connection).
    /// - Allocations: the connection object and its peer name.
    func accept() -> Accepted {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let listener = fileDescriptor
            // SAFETY: `sockaddr_storage` fits every address family; the kernel writes at most `length`
            // bytes into the local and updates `length`.
            let descriptor = unsafe withUnsafeMutablePointer(to: &storage) { pointer in
                unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    unsafe Glibc.accept(listener, $0, &length)
                }
            }
            if descriptor < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EAGAIN, EWOULDBLOCK: return .none
                default: return .failed(SocketError.lastError("accept on \(address)"))
                }
            }
            var one: Int32 = 1
            // SAFETY: passes a pointer to a local `Int32` and its size.
            _ = unsafe setsockopt(
                descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // `accept4` is not exported by Glibc: the connection sets O_NONBLOCK and FD_CLOEXEC itself.
            do throws(SocketError) {
                return .connection(try TCPConnection(adopting: descriptor, peer: Self.describe(storage)))
            } catch {
                return .failed(error)  // the connection closed the descriptor
            }
        }
    }

    /// The port bound to `descriptor`, from `getsockname` (the port field sits at the same offset in
    /// `sockaddr_in` and `sockaddr_in6`).
    private static func localPort(_ descriptor: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // SAFETY: as in `accept()`: the kernel writes at most `length` bytes into the local.
        let result = unsafe withUnsafeMutablePointer(to: &storage) { pointer in
            unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                unsafe getsockname(descriptor, $0, &length)
            }
        }
        guard result == 0 else { return nil }
        let isV6 = storage.ss_family == sa_family_t(AF_INET6)
        return unsafe withUnsafeBytes(of: &storage) { raw in
            // SAFETY: the family tells which layout the storage holds; both are smaller than it.
            isV6
                ? UInt16(bigEndian: unsafe raw.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: unsafe raw.load(as: sockaddr_in.self).sin_port)
        }
    }

    /// `127.0.0.1:54321` or `[::1]:54321` for a peer address.
    private static func describe(_ storage: sockaddr_storage) -> String {
        var copy = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let isV6 = storage.ss_family == sa_family_t(AF_INET6)
        // SAFETY: the family tells which layout the storage holds; `text` has room for the longest
        // address `inet_ntop` writes, NUL included.
        let port: UInt16 = unsafe withUnsafeBytes(of: &copy) { raw in
            if isV6 {
                var v6 = unsafe raw.load(as: sockaddr_in6.self)
                _ = unsafe inet_ntop(AF_INET6, &v6.sin6_addr, &text, socklen_t(text.count))
                return UInt16(bigEndian: v6.sin6_port)
            }
            // SAFETY: as above, for the IPv4 form.
            var v4 = unsafe raw.load(as: sockaddr_in.self)
            _ = unsafe inet_ntop(AF_INET, &v4.sin_addr, &text, socklen_t(text.count))
            return UInt16(bigEndian: v4.sin_port)
        }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return isV6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

@available(*, unavailable)
extension ListeningSocket: Sendable {}
