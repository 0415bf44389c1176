/// The store's channels by name: channel login → its log, its ring and its number, found by one
/// probe into a table whose 64-byte slots (one cache line each) hold the name itself.
///
/// A line's channel used to be found through a ``NameIndex`` of 16-byte slots whose value was the
/// log's address, confirmed against the name inside the log object, and only then did the append
/// load the log's ring: three dependent loads before the ring, each a cache miss once thousands of
/// channels have pushed the others' state out of the caches (issue #39: 12% of replay's profile at
/// 10,000 channels, 3.7% at 1,000). Here the slot that the name hashes to holds the name's first
/// 32 bytes (Twitch logins have at most 25), the log's and the ring's addresses and the channel
/// number, so one line confirms the name and gives the ring. A longer name is confirmed by the
/// caller (`confirm`, against the log's own copy).
///
/// ```
///  slot (64 bytes):  [ hash | log | ring | channel · length | name bytes 0 ..< 32, zero-padded ]
///  hash 0 = empty; linear probing from the hash's home slot; at most three quarters full
/// ```
/// Three quarters, not half: at most half full, the table was 2 MB instead of 1 at 10,000 channels
/// (peak RSS 1.8 MB above the 16-byte slots it replaced); a second probe reads the next line.
///
/// The three index types of this module are `public` (their members `package`): Swift 6.3 does not
/// serialize the `@inlinable` members of a `package` type, so the store's per-line lookups would be
/// calls across the module boundary (measured: 4% more instructions a line in replay when the
/// indexes left ChatStore).
///
/// Names are never removed (a store keeps every channel). Owner-only (one thread): readers find
/// logs through the store's chunk directory, not here.
/// - Allocations: one table at init; one per doubling in ``insert(_:_:)``; none otherwise.
@safe
public struct ChannelIndex: ~Copyable {
    /// A name as the index compares it: its hash, its length and its first 32 bytes (zero-padded).
    public struct Key: Sendable {
        public var hash: UInt64
        public var length: Int
        public var words: InlineArray<4, UInt64>

        public init(hash: UInt64, length: Int, words: InlineArray<4, UInt64>) {
            self.hash = hash
            self.length = length
            self.words = words
        }
    }

    /// What the index keeps for a channel.
    public struct Entry: Equatable, Sendable {
        /// The address of the channel's log (unretained: its owner keeps it alive).
        public var log: UInt
        /// The address of the log's ring (unretained).
        public var ring: UInt
        /// The channel's number in its store.
        public var channel: Int

        public init(log: UInt, ring: UInt, channel: Int) {
            self.log = log
            self.ring = ring
            self.channel = channel
        }
    }

    /// One cache line: the key's hash (0: empty), the entry, and the name's first 32 bytes.
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline var hash: UInt64
        @usableFromInline var log: UInt
        @usableFromInline var ring: UInt
        @usableFromInline var channel: UInt32
        @usableFromInline var length: UInt32
        @usableFromInline var words: InlineArray<4, UInt64>

        @usableFromInline
        init(hash: UInt64, log: UInt, ring: UInt, channel: UInt32, length: UInt32, words: InlineArray<4, UInt64>) {
            self.hash = hash
            self.log = log
            self.ring = ring
            self.channel = channel
            self.length = length
            self.words = words
        }
    }

    /// The longest name compared inside the slot; a longer one also goes through `confirm`.
    @inlinable package static var inlineBytes: Int { 32 }

    // `@usableFromInline` (and the lookup `@inlinable`): the store finds a line's channel here on
    // every line, from another module.
    @usableFromInline var slots: UnsafeMutablePointer<Slot>
    @usableFromInline var mask: Int
    /// Names stored.
    package private(set) var count = 0

    /// - Parameter minimumCapacity: names the first table holds (it has at least 4/3 as many slots).
    package init(minimumCapacity: Int = 64) {
        var size = 16
        while size * 3 < minimumCapacity * 4 { size <<= 1 }
        unsafe slots = Self.makeSlots(size)
        mask = size - 1
    }

    deinit {
        unsafe UnsafeMutableRawPointer(slots).deallocate()
    }

    private static func makeSlots(_ size: Int) -> UnsafeMutablePointer<Slot> {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size * MemoryLayout<Slot>.stride, alignment: 64)
        let slots = unsafe raw.bindMemory(to: Slot.self, capacity: size)
        unsafe slots.initialize(
            repeating: Slot(hash: 0, log: 0, ring: 0, channel: 0, length: 0, words: InlineArray(repeating: 0)),
            count: size)
        return unsafe slots
    }

    /// Bytes of the table (for memory accounting and tests).
    package var reservedBytes: Int { (mask + 1) * MemoryLayout<Slot>.stride }

    /// The key of `name`: one pass over its bytes, eight at a time.
    ///
    /// - Complexity: O(`name.count` / 8). - Allocations: none.
    @inlinable
    @inline(__always)
    package static func key(for name: Span<UInt8>) -> Key {
        let words = words(of: name)
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: name.count)
        for k in 0..<4 {
            h = (h ^ words[k]) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
        }
        if name.count > inlineBytes { h ^= hashBytes(name, inlineBytes..<name.count) }
        return Key(hash: h == 0 ? 1 : h, length: name.count, words: words)
    }

    /// The first ``inlineBytes`` bytes of `name` as four words, zero-padded (bytes load
    /// little-endian), ASCII letters lowercased when `lowercasingASCII`: a name's part of a ``Key``,
    /// and capture's case-insensitive lane check (`CaptureLane`). Two names of one length up to
    /// ``inlineBytes`` are equal (equal but for ASCII case, lowercased) exactly when their words are.
    ///
    /// - Complexity: O(`inlineBytes` / 8). - Allocations: none.
    @inlinable
    @inline(__always)
    package static func words(of name: Span<UInt8>, lowercasingASCII: Bool = false) -> InlineArray<4, UInt64> {
        var words = InlineArray<4, UInt64>(repeating: 0)
        let n = min(name.count, inlineBytes)
        // SAFETY: whole words are read below `n - n % 8`, the tail byte by byte below `n`; `n <= name.count`.
        unsafe name.withUnsafeBytes { raw in
            var i = 0
            while i &+ 8 <= n {
                let word = unsafe raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                words[i >> 3] = lowercasingASCII ? asciiLowercased(word) : word
                i &+= 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                tail |= UInt64(unsafe raw[i]) << shift
                shift &+= 8
                i &+= 1
            }
            if shift != 0 { words[n >> 3] = lowercasingASCII ? asciiLowercased(tail) : tail }
        }
        return words
    }

    /// Whether two names' ``words(of:lowercasingASCII:)`` are the same.
    @inlinable
    @inline(__always)
    package static func sameWords(_ a: InlineArray<4, UInt64>, _ b: InlineArray<4, UInt64>) -> Bool {
        a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3]
    }

    /// `word`'s eight bytes with `A`–`Z` made `a`–`z` and every other byte as it was, all at once: a
    /// byte's low seven bits plus 0x3F reach 0x80 from `A`, plus 0x25 from past `Z`, neither carrying
    /// into the next byte; a byte with its top bit set is not ASCII and stays.
    @inlinable
    @inline(__always)
    static func asciiLowercased(_ word: UInt64) -> UInt64 {
        let lows: UInt64 = 0x0101_0101_0101_0101
        let heptets = word & (0x7F &* lows)
        let fromA = heptets &+ (0x80 &- 0x41) &* lows
        let pastZ = heptets &+ (0x80 &- 0x5B) &* lows
        let upper = fromA & ~pastZ & ~word & (0x80 &* lows)
        return word | upper >> 2
    }

    @inlinable
    @inline(__always)
    static func home(_ hash: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    @inlinable
    @inline(__always)
    static func matches(_ slot: Slot, _ key: Key) -> Bool {
        slot.hash == key.hash && Int(slot.length) == key.length && sameWords(slot.words, key.words)
    }

    /// The entry stored under `key`'s name, or `nil`. A name longer than ``inlineBytes`` matches
    /// only if `confirm(entry)` says the entry is its own (the slot holds its first 32 bytes only).
    ///
    /// - Complexity: O(1) expected: one slot (one cache line) almost always. - Allocations: none.
    @inlinable
    @inline(__always)
    package func entry(for key: Key, confirm: (Entry) -> Bool) -> Entry? {
        let slots = unsafe self.slots
        let mask = self.mask
        var i = Self.home(key.hash, mask)
        while true {
            // SAFETY: `i` is masked to the table.
            let slot = unsafe slots[i]
            if slot.hash == 0 { return nil }
            if Self.matches(slot, key) {
                let entry = Entry(log: slot.log, ring: slot.ring, channel: Int(slot.channel))
                if key.length <= Self.inlineBytes || confirm(entry) { return entry }
            }
            i = (i &+ 1) & mask
        }
    }

    /// The address of `key`'s home slot: the one cache line ``entry(for:confirm:)`` almost always
    /// reads, for a caller that sees the name coming and prefetches it (``ChatStore/lookahead``).
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inlinable
    @inline(__always)
    package func homeSlot(of key: Key) -> UnsafeRawPointer {
        // SAFETY: the home index is masked to the table; only the address is formed, nothing is read.
        unsafe UnsafeRawPointer(slots + Self.home(key.hash, mask))
    }

    /// Stores `entry` for `key`'s name, which must not be stored yet (``entry(for:confirm:)`` just
    /// said `nil`), doubling the table first when it is three quarters full.
    ///
    /// - Complexity: amortised O(1) expected. - Allocations: one per doubling.
    package mutating func insert(_ key: Key, _ entry: Entry) {
        precondition(entry.channel >= 0 && entry.channel <= Int(UInt32.max), "channel number out of range")
        precondition(key.length <= Int(UInt32.max), "name too long")
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        let slot = Slot(
            hash: key.hash, log: entry.log, ring: entry.ring, channel: UInt32(entry.channel),
            length: UInt32(key.length), words: key.words)
        unsafe Self.place(slot, in: slots, mask)
        count += 1
    }

    /// Writes `slot` into the first empty slot from its home.
    @unsafe
    private static func place(_ slot: Slot, in slots: UnsafeMutablePointer<Slot>, _ mask: Int) {
        var i = home(slot.hash, mask)
        // SAFETY: `i` is masked to the table, which has an empty slot (at most three quarters full).
        while unsafe slots[i].hash != 0 { i = (i &+ 1) & mask }
        unsafe slots[i] = slot
    }

    /// Rehashes into a table twice the size.
    private mutating func grow() {
        let old = unsafe slots
        let oldSize = mask + 1
        let size = oldSize * 2
        let next = unsafe Self.makeSlots(size)
        for j in 0..<oldSize {
            // SAFETY: `j < oldSize`, inside the old table.
            let slot = unsafe old[j]
            if slot.hash != 0 { unsafe Self.place(slot, in: next, size - 1) }
        }
        unsafe slots = next
        mask = size - 1
        unsafe UnsafeMutableRawPointer(old).deallocate()
    }
}

@available(*, unavailable)
extension ChannelIndex: Sendable {}
