import Glibc
import IRCWire

/// Bytes waiting to be written, in order: appended at the back, taken from the front.
///
/// ```
///  0            head                      bytes.count
///  [ written …  | pending ………………………… ]
/// ```
/// Invariant: `0 <= head <= bytes.count`. When everything is written the storage is zeroed (it may
/// have held a `PASS` line) and emptied, keeping its capacity; a long written prefix is dropped
/// once it is more than half of the storage, so appends stay amortised O(1).
///
/// Outgoing lines are rare (handshake, JOIN, PONG); this is the control path, not the read path.
struct WriteQueue {
    private var bytes: [UInt8] = []
    private var head = 0

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
    }

    /// Appends raw bytes.
    mutating func append(contentsOf raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Lends the pending bytes to `body`, which returns how many of them it wrote; those are taken.
    ///
    /// - Precondition: `!isEmpty`.
    /// - Complexity: O(1) plus `body`, and the occasional compaction. - Allocations: none.
    @discardableResult
    mutating func drain<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Int) throws(E) -> Int {
        precondition(!isEmpty, "nothing to drain")
        let start = head
        // SAFETY: the array's storage is lent only for the closure; `bytes` is not mutated inside it.
        let written: Int = try unsafe bytes.withUnsafeBufferPointer { (raw) throws(E) -> Int in
            // SAFETY: `start <= bytes.count` (invariant), so the slice lies inside the array's storage,
            // which stays alive and unmodified for the duration of `body`.
            try unsafe body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: raw[start...])))
        }
        precondition(written >= 0 && written <= count, "drain body reported more bytes than it was lent")
        head += written
        if head == bytes.count {
            // Forget the written lines, PASS included.
            for i in bytes.indices { bytes[i] = 0 }
            bytes.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 4096 && head * 2 > bytes.count {
            bytes.removeSubrange(0..<head)
            head = 0
        }
        return written
    }
}
