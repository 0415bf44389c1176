/// One process-wide table of the strings that repeat across chat lines — logins, display names,
/// colours, badge sets — handing out small ``Token``s so that renderers compare and cache by token.
///
/// Reference-counted by live ring entries: when the last entry using a string is evicted, the string
/// is pruned and its index reused under a new generation (so a stale token never matches).
/// Memory stays proportional to the distinct strings of the live entries.
///
/// Owned by the ingest loop (the owner of the rings); not for use from other threads.
public final class Interner {
    private var table: HashIndex
    private var hashes: [UInt64] = [0]
    private var refCounts: [UInt32] = [0]
    private var generations: [UInt16] = [0]
    private var starts: [Int] = [0]
    private var lengths: [Int] = [0]
    private var free: [UInt32] = []
    private var arena: [UInt8] = []
    /// The other half of the arena's double buffer, used by compaction (keeps its capacity).
    private var spare: [UInt8] = []
    private var deadBytes = 0

    /// Strings live now.
    public private(set) var count = 0

    /// - Parameter expected: distinct strings to hold without growing (several per live entry of
    ///   every ring). Beyond it the table rebuilds itself larger (an allocation, outside steady state).
    public init(expected: Int = 16_384) {
        table = HashIndex(minimumCapacity: expected)
        hashes.reserveCapacity(expected + 1)
        refCounts.reserveCapacity(expected + 1)
        generations.reserveCapacity(expected + 1)
        starts.reserveCapacity(expected + 1)
        lengths.reserveCapacity(expected + 1)
        free.reserveCapacity(expected)
        arena.reserveCapacity(expected * 24)
        spare.reserveCapacity(expected * 24)
    }

    /// The token for `bytes[range]`, taking one reference; ``Token/none`` for an empty range.
    ///
    /// - Complexity: O(`range.count`) expected. - Allocations: none in steady state.
    public func intern(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Token {
        guard !range.isEmpty else { return .none }
        let h = hashBytes(bytes, range)
        var probe = h
        // Keys of the table are hash variants: on a (rare) collision with a different string, the
        // next variant is tried, so equal hashes never merge different strings.
        while let index = table.value(for: probe) {
            let i = Int(index)
            if lengths[i] == range.count && equalsArena(bytes, range, at: starts[i]) {
                refCounts[i] += 1
                return token(i)
            }
            probe = probe &* 0x9E37_79B9_7F4A_7C15 | 1
        }
        let i = allocateIndex()
        hashes[i] = probe
        refCounts[i] = 1
        starts[i] = arena.count
        lengths[i] = range.count
        for k in range { arena.append(bytes[k]) }
        if !table.set(UInt64(i), for: probe) {
            rebuild(capacity: table.capacity)
            table.set(UInt64(i), for: probe)
        }
        count += 1
        return token(i)
    }

    /// Drops one reference; prunes the string when none is left.
    ///
    /// - Complexity: O(1) expected (amortised arena compaction). - Allocations: none.
    public func release(_ token: Token) {
        guard token != .none else { return }
        let i = Int(token.rawValue & 0xFFFFF)
        precondition(i < refCounts.count && generations[i] == UInt16(token.rawValue >> 20), "stale token released")
        refCounts[i] -= 1
        guard refCounts[i] == 0 else { return }
        table.remove(hashes[i])
        generations[i] = (generations[i] &+ 1) & 0xFFF
        deadBytes += lengths[i]
        lengths[i] = 0
        free.append(UInt32(i))
        count -= 1
        if deadBytes > 4096 && deadBytes > arena.count / 2 { compact() }
    }

    /// The bytes of a live token, for display and tests.
    public func withBytes<R>(_ token: Token, _ body: (ArraySlice<UInt8>) -> R) -> R? {
        let i = Int(token.rawValue & 0xFFFFF)
        guard token != .none, i < refCounts.count, refCounts[i] > 0, generations[i] == UInt16(token.rawValue >> 20)
        else { return nil }
        return body(arena[starts[i]..<(starts[i] + lengths[i])])
    }

    /// References held on a live token (0 when pruned).
    public func referenceCount(_ token: Token) -> Int {
        let i = Int(token.rawValue & 0xFFFFF)
        guard token != .none, i < refCounts.count, generations[i] == UInt16(token.rawValue >> 20) else { return 0 }
        return Int(refCounts[i])
    }

    /// Bytes held for strings, live and not yet compacted.
    public var arenaBytes: Int { arena.count }

    private func token(_ i: Int) -> Token { Token(rawValue: UInt32(i) | UInt32(generations[i]) << 20) }

    private func allocateIndex() -> Int {
        if let i = free.popLast() { return Int(i) }
        precondition(hashes.count < 0xFFFFF, "interner full")
        hashes.append(0)
        refCounts.append(0)
        generations.append(0)
        starts.append(0)
        lengths.append(0)
        return hashes.count - 1
    }

    private func equalsArena(_ bytes: Span<UInt8>, _ range: Range<Int>, at start: Int) -> Bool {
        var k = start
        for i in range {
            if arena[k] != bytes[i] { return false }
            k += 1
        }
        return true
    }

    /// Copies the live strings into the spare arena and swaps the two (both keep their capacity,
    /// so compaction does not allocate once they have reached their high-water mark).
    private func compact() {
        spare.removeAll(keepingCapacity: true)
        for i in 1..<refCounts.count where refCounts[i] > 0 {
            let s = starts[i]
            starts[i] = spare.count
            spare.append(contentsOf: arena[s..<(s + lengths[i])])
        }
        swap(&arena, &spare)
        deadBytes = 0
    }

    private func rebuild(capacity: Int) {
        let next = HashIndex(minimumCapacity: capacity)
        for i in 1..<refCounts.count where refCounts[i] > 0 { next.set(UInt64(i), for: hashes[i]) }
        table = next
    }
}

@available(*, unavailable)
extension Interner: Sendable {}
