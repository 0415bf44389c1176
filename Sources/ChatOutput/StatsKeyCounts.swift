/// ``StatsCollector``'s counts by byte string (channel names, msg-ids): a count per distinct key,
/// the key's bytes kept once, at its first sight.
///
/// Open addressing with linear probing over 64-bit hashes (read eight bytes at a time); a probe that
/// meets an equal hash compares the lengths and bytes, so different keys never merge. Slots, entries
/// and the key bytes are raw memory the value owns, grown by doubling; counting a key seen before
/// costs a hash, a probe, a compare and an increment: no reference counting, no uniqueness check,
/// no allocation.
///
/// ```
///  slots:   [hash · entry+1] …          (entry+1 = 0: empty), mask + 1 of them, ≤ 3/4 used
///  entries: hash · start · length · count
///  arena:   "pixelharbor" "lunafrost" …  every key's bytes, back to back
/// ```
/// Owner-only (a noncopyable value; counting is `mutating`, so its owner holds it in a `var`).
@safe
struct StatsKeyCounts: ~Copyable {
    private struct Slot {
        var hash: UInt64
        /// The entry's index + 1; 0 for an empty slot.
        var entry: Int
    }
    private struct Entry {
        var hash: UInt64
        var start: Int
        var length: Int
        var count: Int
    }
    private var slots: UnsafeMutablePointer<Slot>
    private var mask: Int
    private var entries: UnsafeMutablePointer<Entry>
    private var entryCapacity: Int
    /// Distinct keys counted.
    private(set) var keyCount = 0
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCount = 0
    private var arenaCapacity: Int

    /// - Allocations: three buffers (slots, entries, key bytes); more only as keys come (doubling).
    init() {
        mask = 15
        unsafe slots = .allocate(capacity: 16)
        unsafe slots.initialize(repeating: Slot(hash: 0, entry: 0), count: 16)
        entryCapacity = 12
        unsafe entries = .allocate(capacity: 12)
        arenaCapacity = 256
        unsafe arena = .allocate(capacity: 256 + Self.pad)
        unsafe arena.initialize(repeating: 0, count: 256 + Self.pad)
    }

    deinit {
        unsafe slots.deallocate()
        unsafe entries.deallocate()
        unsafe arena.deallocate()
    }

    // SAFETY (all methods): `slots` (mask + 1 of them, initialized), `entries` (keyCount initialized
    // of entryCapacity) and `arena` (arenaCount bytes written of arenaCapacity) live from init (or
    // the growth that replaced them) to deinit; slot indexes are masked to `0 ... mask`, entry
    // indexes come from slots (so `< keyCount`), arena ranges from entries (inside `arenaCount`).
    // The arena has `pad` initialized bytes past its capacity, so a word loaded at a stored key's
    // start stays inside it. A key's range is checked against `bytes.count` before any load, and
    // a key is read as one word only when 8 bytes from its start are inside the bytes (`readable`).

    /// Counts one more of the key `bytes[range]`.
    ///
    /// - Complexity: O(`range.count`) expected. - Allocations: only at a key's first sight (when
    ///   the tables or the key bytes grow).
    @inline(__always)
    mutating func add(_ bytes: Span<UInt8>, _ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "key outside the bytes")
        unsafe bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else {  // an empty key of empty bytes: no byte is read
                unsafe add(Key(start: UnsafeRawPointer(arena), length: 0, readable: 0))
                return
            }
            let start = unsafe base + range.lowerBound
            unsafe add(Key(start: start, length: range.count, readable: raw.count - range.lowerBound))
        }
    }

    /// A key's bytes: `length` of them at `start`, and `readable` bytes from `start` that may be
    /// loaded (`readable >= length`), so that a short key is read as one word when the line goes on.
    @unsafe
    private struct Key {
        var start: UnsafeRawPointer
        var length: Int
        var readable: Int
    }

    @unsafe
    @inline(__always)
    private mutating func add(_ key: Key) {
        let hash = unsafe Self.hash(key)
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = unsafe slots[i]
            if slot.entry == 0 { break }
            if slot.hash == hash {
                let e = unsafe entries + (slot.entry - 1)
                if unsafe e.pointee.length == key.length && Self.equal(key, UnsafeRawPointer(arena + e.pointee.start)) {
                    unsafe e.pointee.count &+= 1
                    return
                }
            }
            i = (i &+ 1) & mask
        }
        unsafe insert(key, hash, slot: i)
    }

    /// A new key in the empty slot `slot`.
    @unsafe
    @inline(never)
    private mutating func insert(_ key: Key, _ hash: UInt64, slot: Int) {
        let length = unsafe key.length
        if arenaCapacity - arenaCount < length {
            let capacity = max(arenaCapacity * 2, arenaCount + length)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + Self.pad)
            unsafe grown.initialize(repeating: 0, count: capacity + Self.pad)
            unsafe grown.update(from: arena, count: arenaCount)
            unsafe arena.deallocate()
            unsafe arena = grown
            arenaCapacity = capacity
        }
        unsafe UnsafeMutableRawPointer(arena + arenaCount).copyMemory(from: key.start, byteCount: length)
        if keyCount == entryCapacity {
            let capacity = entryCapacity * 2
            let grown = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
            unsafe grown.moveInitialize(from: entries, count: keyCount)
            unsafe entries.deallocate()
            unsafe entries = grown
            entryCapacity = capacity
        }
        unsafe (entries + keyCount).initialize(to: Entry(hash: hash, start: arenaCount, length: length, count: 1))
        arenaCount += length
        keyCount += 1
        unsafe slots[slot] = Slot(hash: hash, entry: keyCount)
        if keyCount * 4 > (mask + 1) * 3 { unsafe rehash(size: (mask + 1) * 2) }
    }

    @unsafe
    private mutating func rehash(size: Int) {
        unsafe slots.deallocate()
        unsafe slots = .allocate(capacity: size)
        unsafe slots.initialize(repeating: Slot(hash: 0, entry: 0), count: size)
        mask = size - 1
        for k in 0..<keyCount {
            let hash = unsafe entries[k].hash
            var i = Int(truncatingIfNeeded: hash) & mask
            while unsafe slots[i].entry != 0 { i = (i &+ 1) & mask }
            unsafe slots[i] = Slot(hash: hash, entry: k + 1)
        }
    }

    /// Every key with its count, in the order first seen.
    ///
    /// - Complexity: O(keys + key bytes). - Allocations: none besides `body`'s.
    func forEachKey(_ body: (Span<UInt8>, Int) -> Void) {
        for k in 0..<keyCount {
            let e = unsafe entries[k]
            let key = unsafe UnsafeBufferPointer(start: arena + e.start, count: e.length)
            unsafe body(key.span, e.count)
        }
    }

    /// Bytes past `arenaCapacity` that stay allocated, so that the last key's word loads
    /// (``word(_:_:)``) stay inside the arena.
    private static let pad = 8

    /// A 64-bit hash of a key's bytes, eight at a time (a last word that overlaps the one before, or
    /// one word masked to a short key's length).
    @unsafe
    @inline(__always)
    private static func hash(_ key: Key) -> UInt64 {
        let n = unsafe key.length
        let p = unsafe key.start
        let h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: n)
        if n <= 8 {
            return unsafe mix(h, key.readable >= 8 ? word(p, n) : bytewise(p, n))
        }
        var m = h
        var i = 0
        while i &+ 8 < n {
            m = unsafe mix(m, p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i &+= 8
        }
        return unsafe mix(m, p.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
    }

    @inline(__always)
    private static func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
        let m = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
        return m ^ (m >> 32)
    }

    /// The `n` (0 ... 8) bytes at `p` as a little-endian word, read as one word (8 bytes readable).
    @unsafe
    @inline(__always)
    private static func word(_ p: UnsafeRawPointer, _ n: Int) -> UInt64 {
        let w = UInt64(littleEndian: unsafe p.loadUnaligned(as: UInt64.self))
        return n >= 8 ? w : w & ((1 &<< UInt64(n &* 8)) &- 1)
    }

    /// ``word(_:_:)`` read byte by byte (fewer than 8 bytes readable).
    @unsafe
    private static func bytewise(_ p: UnsafeRawPointer, _ n: Int) -> UInt64 {
        var w: UInt64 = 0
        for k in 0..<n { w |= UInt64(unsafe p.load(fromByteOffset: k, as: UInt8.self)) &<< UInt64(k &* 8) }
        return w
    }

    /// Whether the key's bytes equal the `key.length` bytes stored at `stored` (in the arena, padded).
    @unsafe
    @inline(__always)
    private static func equal(_ key: Key, _ stored: UnsafeRawPointer) -> Bool {
        let n = unsafe key.length
        let p = unsafe key.start
        if n <= 8 {
            let mine = unsafe key.readable >= 8 ? word(p, n) : bytewise(p, n)
            return unsafe mine == word(stored, n)
        }
        var i = 0
        while i &+ 8 < n {
            let w = unsafe p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if unsafe w != stored.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i &+= 8
        }
        let w = unsafe p.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        return unsafe w == stored.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
    }
}

@available(*, unavailable)
extension StatsKeyCounts: Sendable {}
