/// A small set of modified sequence numbers that never allocates: up to 32, beyond which it only
/// remembers that it overflowed (observers then refresh every visible row).
public struct ModifiedSeqs: Sendable, Equatable {
    public static let capacity = 32
    private var storage = InlineArray<32, UInt64>(repeating: 0)
    public private(set) var count = 0
    /// More modifications happened than fit: treat every row as modified.
    public private(set) var overflowed = false

    public init() {}

    /// No modification recorded (not even an overflow).
    var isEmpty: Bool { count == 0 && !overflowed }

    public mutating func insert(_ seq: UInt64) {
        guard !overflowed, !contains(seq) else { return }
        guard count < Self.capacity else {
            overflowed = true
            return
        }
        storage[count] = seq
        count += 1
    }

    /// Marks the set as overflowed: every visible row counts as modified.
    public mutating func markAllModified() { overflowed = true }

    public func contains(_ seq: UInt64) -> Bool {
        for i in 0..<count where storage[i] == seq { return true }
        return false
    }

    public mutating func formUnion(_ other: ModifiedSeqs) {
        if other.overflowed { overflowed = true }
        for i in 0..<other.count { insert(other.storage[i]) }
    }

    /// The members, in insertion order (empty meaning "all" when ``overflowed``).
    public func forEach(_ body: (UInt64) -> Void) {
        for i in 0..<count { body(storage[i]) }
    }

    public static func == (a: ModifiedSeqs, b: ModifiedSeqs) -> Bool {
        guard a.count == b.count, a.overflowed == b.overflowed else { return false }
        for i in 0..<a.count where !b.contains(a.storage[i]) { return false }
        return true
    }
}
