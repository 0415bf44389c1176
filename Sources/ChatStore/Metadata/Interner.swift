import ChatIndex

/// One process-wide table of the strings that repeat across chat lines — logins, display names,
/// colours, badge sets — handing out small ``Token``s so that renderers compare and cache by token.
///
/// Reference-counted by live ring entries: when the last entry using a string is evicted, the string
/// is pruned and its index reused under a new generation (so a stale token never matches).
/// Memory stays proportional to the distinct strings of the live entries.
///
/// Storage is raw memory the instance owns (entries, string arena, free list), held in plain stored
/// properties, grown by doubling and never shrunk: interning a known string costs a hash, a probe, a compare and
/// an increment — no reference counting, uniqueness or exclusivity checks on the per-line path.
///
/// ```
///  entries[i]: hash · refCount · generation · start · length      (index 0 unused: Token.none)
///  arena:      [ (index, length) "nightowlgg" | (index, length) "NightOwlGG" | … ]   8-byte headers
///  free:       indexes of pruned entries, reused first
/// ```
/// Owned by the ingest loop (the owner of the rings); not for use from other threads.
@safe
public final class Interner {
    private struct Entry {
        var hash: UInt64 = 0
        var refCount: UInt32 = 0
        var generation: UInt16 = 0
        var start = 0
        var length = 0
    }

    // All mutable state: plain stored properties, one owner (see above).
    private var entries: UnsafeMutablePointer<Entry>
    private var entryCount = 1
    private var entryCapacity: Int
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCount = 0
    private var arenaCapacity: Int
    private var free: UnsafeMutablePointer<UInt32>
    private var freeCount = 0
    private var deadBytes = 0
    private var live = 0

    private var table: HashIndex

    /// Strings live now.
    public var count: Int { live }

    /// - Parameter expected: distinct strings to hold without growing (several per live entry of
    ///   every ring). Beyond it the storage grows (an allocation, outside steady state).
    public init(expected: Int = 16_384) {
        let capacity = max(expected, 16) + 1
        table = HashIndex(minimumCapacity: capacity)
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        unsafe entries.initialize(repeating: Entry(), count: capacity)
        let arenaCapacity = capacity * 24
        unsafe self.entries = entries
        entryCapacity = capacity
        unsafe arena = .allocate(capacity: arenaCapacity)
        self.arenaCapacity = arenaCapacity
        unsafe free = .allocate(capacity: capacity)
    }

    deinit {
        unsafe entries.deallocate()
        unsafe arena.deallocate()
        unsafe free.deallocate()
    }

    // SAFETY (whole type): `entries`, `arena` and `free` are allocated in init and freed in deinit
    // (replaced only by their owner when they grow); every entry index used
    // below is `< entryCount <= entryCapacity`, every arena offset `< arenaCount <= arenaCapacity`,
    // checked where it is produced. The owner thread is the only user, and no method re-enters.

    /// The token for `bytes[range]`, taking one reference; ``Token/none`` for an empty range.
    ///
    /// - Complexity: O(`range.count`) expected. - Allocations: none in steady state.
    public func intern(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Token {
        guard !range.isEmpty else { return .none }
        precondition(range.upperBound <= bytes.count, "range outside the bytes")
        let h = hashBytes(bytes, range)
        var probe = h
        // Keys of the table are hash variants: on a (rare) collision with a different string, the
        // next variant is tried, so equal hashes never merge different strings.
        while let index = table.value(for: probe) {
            let i = Int(index)
            let same = unsafe bytes.withUnsafeBufferPointer { p in
                unsafe self.entries[i].length == range.count
                    && equalsArena(p.baseAddress! + range.lowerBound, range.count, at: self.entries[i].start)
            }
            if same {
                unsafe self.entries[i].refCount += 1
                return token(i)
            }
            probe = probe &* 0x9E37_79B9_7F4A_7C15 | 1
        }
        let i = allocateIndex()
        let start = reserveArena(Self.header + range.count) + Self.header
        unsafe writeHeader(at: start - Self.header, index: i, length: range.count)
        unsafe bytes.withUnsafeBufferPointer { p in
            unsafe (self.arena + start).update(from: p.baseAddress! + range.lowerBound, count: range.count)
        }
        unsafe self.entries[i] = unsafe Entry(
            hash: probe, refCount: 1, generation: self.entries[i].generation, start: start, length: range.count
        )
        if !table.set(UInt64(i), for: probe) {
            rebuild(capacity: table.capacity)
            table.set(UInt64(i), for: probe)
        }
        live += 1
        return token(i)
    }

    /// Drops one reference; prunes the string when none is left.
    ///
    /// - Complexity: O(1) expected (amortised arena compaction). - Allocations: none.
    public func release(_ token: Token) {
        guard token != .none else { return }
        let i = Int(token.rawValue & 0xFFFFF)
        precondition(isLive(token), "stale token released")
        unsafe self.entries[i].refCount -= 1
        guard unsafe self.entries[i].refCount == 0 else { return }
        unsafe table.remove(self.entries[i].hash)
        unsafe self.entries[i].generation = unsafe (self.entries[i].generation &+ 1) & 0xFFF
        unsafe deadBytes += Self.header + self.entries[i].length
        unsafe self.entries[i].length = 0
        unsafe self.free[freeCount] = UInt32(i)
        freeCount += 1
        live -= 1
        if deadBytes > 4096 && deadBytes > arenaCount / 2 { compact() }
    }

    /// The bytes of a live token, for display and tests.
    public func withBytes<R>(_ token: Token, _ body: (ArraySlice<UInt8>) -> R) -> R? {
        guard isLive(token) else { return nil }
        let e = unsafe self.entries[Int(token.rawValue & 0xFFFFF)]
        return body(unsafe Array(UnsafeBufferPointer(start: self.arena + e.start, count: e.length))[...])
    }

    /// References held on a live token (0 when pruned).
    public func referenceCount(_ token: Token) -> Int {
        guard isLive(token) else { return 0 }
        return unsafe Int(self.entries[Int(token.rawValue & 0xFFFFF)].refCount)
    }

    /// Bytes held for strings, live and not yet compacted.
    public var arenaBytes: Int { arenaCount }

    private func isLive(_ token: Token) -> Bool {
        let i = Int(token.rawValue & 0xFFFFF)
        guard token != .none, i < entryCount else { return false }
        let e = unsafe self.entries[i]
        return e.refCount > 0 && e.generation == UInt16(token.rawValue >> 20)
    }

    private func token(_ i: Int) -> Token {
        unsafe Token(rawValue: UInt32(i) | UInt32(self.entries[i].generation) << 20)
    }

    private func allocateIndex() -> Int {
        if freeCount > 0 {
            freeCount -= 1
            return unsafe Int(self.free[freeCount])
        }
        if entryCount == entryCapacity { growEntries() }
        precondition(entryCount < 0xFFFFF, "interner full")
        entryCount += 1
        return entryCount - 1
    }

    private func growEntries() {
        let capacity = entryCapacity * 2
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        unsafe entries.moveInitialize(from: self.entries, count: entryCapacity)
        unsafe (entries + entryCapacity).initialize(repeating: Entry(), count: capacity - entryCapacity)
        let free = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        unsafe free.update(from: self.free, count: freeCount)
        unsafe self.entries.deallocate()
        unsafe self.free.deallocate()
        unsafe self.entries = unsafe entries
        unsafe self.free = unsafe free
        entryCapacity = capacity
        rebuild(capacity: capacity)
    }

    /// Offset of `count` free arena bytes (compacting or growing when needed).
    private func reserveArena(_ count: Int) -> Int {
        if self.arenaCapacity - arenaCount < count {
            compact()
            if self.arenaCapacity - arenaCount < count {
                let capacity = max(arenaCapacity * 2, arenaCount + count)
                let arena = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
                unsafe arena.update(from: self.arena, count: arenaCount)
                unsafe self.arena.deallocate()
                unsafe self.arena = unsafe arena
                self.arenaCapacity = capacity
            }
        }
        let start = arenaCount
        arenaCount += count
        return start
    }

    @unsafe
    private func equalsArena(_ key: UnsafePointer<UInt8>, _ count: Int, at start: Int) -> Bool {
        let stored = unsafe self.arena + start
        var k = 0
        while k < count {
            if unsafe key[k] != stored[k] { return false }
            k &+= 1
        }
        return true
    }

    /// Bytes before each string in the arena: its entry index and length (UInt32 each).
    private static let header = 8

    @unsafe
    private func writeHeader(at offset: Int, index: Int, length: Int) {
        let raw = unsafe UnsafeMutableRawPointer(self.arena + offset)
        unsafe raw.storeBytes(of: UInt32(index), toByteOffset: 0, as: UInt32.self)
        unsafe raw.storeBytes(of: UInt32(length), toByteOffset: 4, as: UInt32.self)
    }

    /// Slides the live strings to the front of the arena in one pass, keeping its capacity: each
    /// string's header names its entry; a string is live if that entry still points at it.
    ///
    /// - Complexity: O(arena bytes). - Allocations: none.
    private func compact() {
        let arena = unsafe self.arena
        let end = arenaCount
        var read = 0
        var write = 0
        while read < end {
            let raw = unsafe UnsafeRawPointer(arena + read)
            let index = Int(unsafe raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let length = Int(unsafe raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            let size = Self.header + length
            let e = unsafe self.entries[index]
            if e.refCount > 0 && e.start == read + Self.header {
                if read != write { unsafe (arena + write).update(from: arena + read, count: size) }
                unsafe self.entries[index].start = write + Self.header
                write += size
            }
            read += size
        }
        arenaCount = write
        deadBytes = 0
    }

    private func rebuild(capacity: Int) {
        var next = HashIndex(minimumCapacity: capacity)
        let count = entryCount
        for i in 1..<count where unsafe self.entries[i].refCount > 0 {
            unsafe next.set(UInt64(i), for: self.entries[i].hash)
        }
        table = next
    }
}

@available(*, unavailable)
extension Interner: Sendable {}
