import COpenSSL
import Glibc

/// An OpenSSL BIO over a non-blocking socket descriptor that writes with `MSG_NOSIGNAL`.
///
/// OpenSSL's own socket BIO writes with `write(2)`, which raises `SIGPIPE` when the peer has gone;
/// this one reports `EPIPE` instead, so a library never has to change the process's signal
/// dispositions. The descriptor number is kept in the BIO's data pointer (as `fd + 1`, so that it
/// is never null); the BIO does not own the descriptor.
enum SocketBIO {
    /// The BIO type, allocated once per process: OpenSSL has only 128 dynamic BIO type indices.
    private static let type: Int32 = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK

    /// A method table for socket BIOs. The owner frees it with `BIO_meth_free` after every BIO made
    /// from it is gone.
    static func makeMethod() -> OpaquePointer? {
        // SAFETY: plain OpenSSL calls on a method table we own; the callbacks are non-capturing
        // closures, so they convert to C function pointers.
        guard let method = unsafe BIO_meth_new(type, "chatcap socket") else {
            return nil
        }
        // SAFETY: as above; each callback receives the BIO OpenSSL calls it for.
        _ = unsafe BIO_meth_set_write(method) { bio, data, length in unsafe SocketBIO.write(bio, data, length) }
        _ = unsafe BIO_meth_set_read(method) { bio, data, length in unsafe SocketBIO.read(bio, data, length) }
        _ = unsafe BIO_meth_set_ctrl(method) { bio, command, _, _ in unsafe SocketBIO.control(bio, command) }
        _ = unsafe BIO_meth_set_create(method) { bio in
            unsafe BIO_set_init(bio, 1)
            return 1
        }
        return unsafe method
    }

    /// A BIO of `method` reading and writing `descriptor`.
    static func make(method: OpaquePointer, descriptor: Int32) -> OpaquePointer? {
        precondition(descriptor >= 0, "invalid descriptor")
        // SAFETY: `method` is a live method table from `makeMethod`; the data pointer is never
        // dereferenced, only turned back into the descriptor number.
        guard let bio = unsafe BIO_new(method) else { return nil }
        unsafe BIO_set_data(bio, UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1))
        return unsafe bio
    }

    private static func descriptor(of bio: OpaquePointer) -> Int32 {
        // SAFETY: the data pointer holds `fd + 1` (see `make`); it is only converted back to an integer.
        Int32(truncatingIfNeeded: Int(bitPattern: unsafe BIO_get_data(bio)) - 1)
    }

    private static func write(_ bio: OpaquePointer?, _ data: UnsafePointer<CChar>?, _ length: Int32) -> Int32 {
        guard let bio = unsafe bio, let data = unsafe data, length > 0 else { return 0 }
        // SAFETY: OpenSSL lends `length` readable bytes at `data` for the call.
        unsafe BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
        let descriptor = unsafe descriptor(of: bio)
        while true {
            // SAFETY: as above.
            let count = unsafe send(descriptor, data, Int(length), Int32(MSG_NOSIGNAL))
            if count >= 0 { return Int32(count) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                // SAFETY: `bio` is the live BIO OpenSSL called us for.
                unsafe BIO_set_flags(bio, BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY)
            }
            return -1
        }
    }

    private static func read(_ bio: OpaquePointer?, _ data: UnsafeMutablePointer<CChar>?, _ length: Int32) -> Int32 {
        guard let bio = unsafe bio, let data = unsafe data, length > 0 else { return 0 }
        // SAFETY: OpenSSL lends `length` writable bytes at `data` for the call.
        unsafe BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
        let descriptor = unsafe descriptor(of: bio)
        while true {
            // SAFETY: as above; the kernel writes at most `length` bytes.
            let count = unsafe recv(descriptor, data, Int(length), 0)
            if count > 0 { return Int32(count) }
            if count == 0 {
                // End of stream: `BIO_eof` must say so, or OpenSSL reports a generic syscall error.
                // SAFETY: `bio` is the live BIO OpenSSL called us for.
                unsafe BIO_set_flags(bio, BIO_FLAGS_IN_EOF)
                return 0
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                // SAFETY: as above.
                unsafe BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
            }
            return -1
        }
    }

    private static func control(_ bio: OpaquePointer?, _ command: Int32) -> Int {
        guard let bio = unsafe bio else { return 0 }
        switch command {
        case BIO_CTRL_FLUSH:
            return 1  // nothing is buffered here
        case BIO_CTRL_EOF:
            // SAFETY: `bio` is the live BIO OpenSSL called us for.
            return unsafe BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0 ? 1 : 0
        default:
            return 0
        }
    }
}
