import Glibc
import IRCWire

/// Bytes waiting to be written, in order: appended at the back, taken from the front.
///
/// ```
///  0            head                      bytes.count
///  [ written …  | pending ………………………… ]
/// ```
/// Invariant: `0 <= head <= bytes.count`. When everything is written the storage is emptied,
/// keeping its capacity (and zeroed first if a secret line such as `PASS` was queued); a long
/// written prefix is dropped once it is more than half of the storage, so appends stay amortised O(1).
///
/// A client's outgoing lines are rare (handshake, JOIN, PONG); the server's replayed lines are
/// appended once each with ``append(line:)``.
///
/// The queue itself does not refuse bytes: its owner bounds it through the stream's
/// `pendingWriteCount` and closes a peer that does not read (the live loop at
/// `LiveSession.writeQueueLimit`, 1 MiB; serve at `ServeClient.maxQueued`, 1 MiB).
struct WriteQueue {
    private var bytes: [UInt8] = []
    private var head = 0
    /// A secret line was queued since the storage was last emptied: zero the storage when it is.
    private var holdsSecret = false

    var isEmpty: Bool { head == bytes.count }
    /// Bytes not yet written.
    var count: Int { bytes.count - head }

    /// Appends `message` and its CR LF.
    ///
    /// - Throws: ``SerializationError`` when the message cannot be written; nothing is appended then.
    /// - Complexity: amortised O(line length). - Allocations: only when the storage grows.
    mutating func append(_ message: OutgoingMessage) throws(SerializationError) {
        let mark = bytes.count
        do {
            try message.serialize(into: &bytes)
        } catch {
            bytes.removeSubrange(mark...)
            throw error
        }
        bytes.append(0x0D)
        bytes.append(0x0A)
        if message.isSecret { holdsSecret = true }
    }

    /// Appends `line` (without terminator) and CR LF.
    ///
    /// - Complexity: amortised O(`line.count`). - Allocations: only when the storage grows.
    mutating func append(line: Span<UInt8>) {
        // SAFETY: the span's storage is lent only for the closure, which copies it into the queue.
        unsafe line.withUnsafeBufferPointer { unsafe bytes.append(contentsOf: $0) }
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    /// Appends raw bytes.
    mutating func append(contentsOf raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends raw bytes (e.g. a WebSocket frame), zeroed once written when they carry a secret.
    ///
    /// - Complexity: amortised O(`raw.count`). - Allocations: only when the storage grows.
    mutating func append(raw: Span<UInt8>, isSecret: Bool) {
        // SAFETY: the span's storage is lent only for the closure, which copies it into the queue.
        unsafe raw.withUnsafeBufferPointer { unsafe bytes.append(contentsOf: $0) }
        if isSecret { holdsSecret = true }
    }

    /// Lends the pending bytes to `write` until the queue is empty or `write` takes nothing; `write`
    /// returns how many of the bytes it was lent it wrote, and those are taken.
    ///
    /// - Returns: `true` when the queue is empty.
    /// - Complexity: O(1) per call of `write`, plus the occasional compaction. - Allocations: none.
    mutating func write<E: Error>(using write: (UnsafeRawBufferPointer) throws(E) -> Int) throws(E) -> Bool {
        while !isEmpty {
            let start = head
            // SAFETY: the array's storage is lent only for the closure; `bytes` is not mutated inside it.
            let written: Int = try unsafe bytes.withUnsafeBufferPointer { (raw) throws(E) -> Int in
                // SAFETY: `start <= bytes.count` (invariant), so the slice lies inside the array's
                // storage, which stays alive and unmodified for the duration of `write`.
                try unsafe write(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: raw[start...])))
            }
            precondition(written >= 0 && written <= count, "write reported more bytes than it was lent")
            if written == 0 { return false }
            head += written
            if head == bytes.count {
                if holdsSecret {
                    // Forget the written lines, PASS included.
                    for i in bytes.indices { bytes[i] = 0 }
                    holdsSecret = false
                }
                bytes.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 4096 && head * 2 > bytes.count {
                bytes.removeSubrange(0..<head)
                head = 0
            }
        }
        return true
    }
}
