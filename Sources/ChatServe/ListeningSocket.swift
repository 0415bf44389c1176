import ChatNet
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
        let address = try SocketAddress.resolve(host: host, port: port)[0]  // never empty: it throws instead
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
        // The address actually bound: with the kernel's port when 0 was asked for.
        // SAFETY: `filling` lends room for any address and its length; the kernel writes within them.
        let (result, local) = unsafe SocketAddress.filling { unsafe getsockname(descriptor, $0, &$1) }
        let actual = result == 0 ? local : address
        fileDescriptor = descriptor
        self.port = actual.port
        self.address = actual.description
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
        let listener = fileDescriptor
        while true {
            // SAFETY: `filling` lends room for any address and its length; the kernel writes within them.
            let (descriptor, peer) = unsafe SocketAddress.filling { unsafe Glibc.accept(listener, $0, &$1) }
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
                return .connection(try TCPConnection(adopting: descriptor, peer: peer.description))
            } catch {
                return .failed(error)  // the connection closed the descriptor
            }
        }
    }
}

@available(*, unavailable)
extension ListeningSocket: Sendable {}
