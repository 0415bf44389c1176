package import Glibc

/// One resolved address of a host: an IPv4 or IPv6 socket address with its port.
///
/// A plain value (the `sockaddr_storage` bytes), so it can be kept, sent to another thread and tried
/// again on a reconnect without resolving anew.
public struct SocketAddress: Sendable, CustomStringConvertible {
    private var storage: sockaddr_storage
    private var length: socklen_t

    /// `AF_INET` or `AF_INET6`.
    public var family: Int32 { Int32(storage.ss_family) }

    /// Resolves `host` (a name or an IP literal) for a TCP connection to `port`, in the order the
    /// resolver prefers. Blocks while the resolver works: call it from the ingest thread before a
    /// connect, never on a per-line path.
    ///
    /// - Throws: ``SocketError`` with code 0 (or the `errno` of `EAI_SYSTEM`) and the resolver's message.
    /// - Complexity: one `getaddrinfo` call. - Allocations: the result array.
    public static func resolve(host: String, port: UInt16) throws(SocketError) -> [SocketAddress] {
        // SAFETY: `addrinfo` holds pointers, but the hints use only its integer fields and stay
        // zero elsewhere, as `getaddrinfo` requires.
        var hints = unsafe addrinfo()
        unsafe hints.ai_family = AF_UNSPEC
        unsafe hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        unsafe hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>? = nil
        // SAFETY: `hints` and `list` are valid locals for the call; on success `getaddrinfo` fills
        // `list` with a chain that is freed below with `freeaddrinfo`.
        let status = unsafe getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            let code = status == EAI_SYSTEM ? errno : 0
            // SAFETY: `gai_strerror` returns a static NUL-terminated string, copied at once.
            let reason = unsafe String(cString: gai_strerror(status))
            throw SocketError(code: code, message: "cannot resolve \(host): \(reason)")
        }
        defer {
            // SAFETY: `list` came from a successful `getaddrinfo` and is freed exactly once.
            unsafe freeaddrinfo(list)
        }
        var addresses: [SocketAddress] = []
        var node = unsafe list
        // SAFETY: every node of the chain is valid until `freeaddrinfo`; `ai_addr` points at
        // `ai_addrlen` bytes, which is checked to fit a `sockaddr_storage` before the copy.
        while let current = unsafe node {
            let family = unsafe current.pointee.ai_family
            let length = unsafe current.pointee.ai_addrlen
            if let address = unsafe current.pointee.ai_addr, Int(length) <= MemoryLayout<sockaddr_storage>.size,
                family == AF_INET || family == AF_INET6
            {
                var entry = SocketAddress(storage: sockaddr_storage(), length: length)
                // SAFETY: copies `length <= sizeof(sockaddr_storage)` bytes from the node's address
                // into the entry's storage.
                unsafe withUnsafeMutableBytes(of: &entry.storage) { destination in
                    unsafe destination.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
                }
                addresses.append(entry)
            }
            // SAFETY: `current` is a live node of the chain (see above).
            unsafe node = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw SocketError(code: 0, message: "cannot resolve \(host): no IPv4 or IPv6 address")
        }
        return addresses
    }

    /// Lets `body` fill in an address, as `accept`, `getsockname` and `getpeername` do (a
    /// `sockaddr*` and its length, updated by the call), and returns the call's result with it.
    ///
    /// The address is only meaningful when the call succeeded.
    package static func filling<R>(_ body: (UnsafeMutablePointer<sockaddr>, inout socklen_t) -> R) -> (R, SocketAddress)
    {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // SAFETY: `sockaddr_storage` is large and aligned enough for any `sockaddr`; the pointer is
        // only used during `body`, whose call writes at most `length` bytes and updates `length`.
        let result = unsafe withUnsafeMutablePointer(to: &storage) { pointer in
            unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe body($0, &length) }
        }
        return (result, SocketAddress(storage: storage, length: length))
    }

    /// Lends the address to a socket call as `(sockaddr*, length)`.
    package func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        // SAFETY: `sockaddr_storage` is large and aligned enough for every `sockaddr_*`; the pointer
        // is only used during `body`.
        return unsafe withUnsafePointer(to: &copy) { pointer in
            unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe body($0, length) }
        }
    }

    /// The port (the field sits at the same offset in `sockaddr_in` and `sockaddr_in6`).
    public var port: UInt16 {
        var copy = storage
        let isV6 = family == AF_INET6
        // SAFETY: the storage holds a `sockaddr_in` or `sockaddr_in6` as `family` says; both are
        // smaller than it.
        return unsafe withUnsafeBytes(of: &copy) { raw in
            isV6
                ? UInt16(bigEndian: unsafe raw.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: unsafe raw.load(as: sockaddr_in.self).sin_port)
        }
    }

    /// `203.0.113.5:6697` or `[2001:db8::1]:6697`.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var copy = storage
        let isV6 = family == AF_INET6
        // SAFETY: the storage holds a `sockaddr_in` or `sockaddr_in6` as `family` says (checked when
        // resolving); `text` has room for the longest address `inet_ntop` writes, NUL included.
        unsafe withUnsafeBytes(of: &copy) { raw in
            if isV6 {
                var v6 = unsafe raw.load(as: sockaddr_in6.self)
                _ = unsafe inet_ntop(AF_INET6, &v6.sin6_addr, &text, socklen_t(text.count))
            } else {
                // SAFETY: as above, for the IPv4 form.
                var v4 = unsafe raw.load(as: sockaddr_in.self)
                _ = unsafe inet_ntop(AF_INET, &v4.sin_addr, &text, socklen_t(text.count))
            }
        }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return isV6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether `host` is an IPv4 or IPv6 literal (no SNI is sent for those, and the certificate is
    /// checked against the IP address instead of a name).
    public static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        // SAFETY: `inet_pton` writes at most `sizeof(in_addr)` / `sizeof(in6_addr)` bytes into the
        // matching local.
        let isV4 = unsafe inet_pton(AF_INET, host, &v4) == 1
        // SAFETY: as above, for the IPv6 form.
        return unsafe isV4 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
