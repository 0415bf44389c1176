import ChatIndex
public import IRCWire

/// Where the append of a line still to come will read first, for a caller that sees lines ahead (a
/// block of parsed lines) and prefetches them. With thousands of channels a line's channel state
/// (its slot of the channel index, its ring object, then its ring's next slot and byte storage) has
/// left the caches since that channel's previous line: loaded in the append, each is a wait for
/// memory in the middle of the line (issue #39). The store only names the addresses: it is pure
/// Swift, and a prefetch is the caller's.
extension ChatStore {
    /// How many lines before its append ``lookahead(_:in:_:)`` is shown a line: one step a line, three
    /// steps (its index slot, its ring, its ring's next slot and bytes).
    public static let lookaheadDistance = 3

    /// Lends `prefetch` the addresses the appends of the next lines will read first (at most
    /// ``CacheLineList/capacity``, in one call), given the `channel` (in `bytes`) of the line three
    /// lines before its append; called once a line, in order:
    /// - that line's slot of the channel index, where its name will be looked up;
    /// - the ring object of the line the previous call showed, found through its slot (which that
    ///   call brought near; nothing for a channel not seen yet). Not the log object: an append reads
    ///   none of its fields unless the line is moderation (`ChannelLog.append`);
    /// - the next slot and the next bytes of the ring found by the previous call (brought near by it),
    ///   and its region's head when the bytes are about to grow (``EntryRing/appendTargets(into:)``).
    ///
    /// A hint only: nothing is created, and an append whose line was shown takes the key and the
    /// entry found here (``ChannelLookahead/take(_:)``) instead of finding them again; a line not
    /// shown, or shown out of turn, is looked up as always. Owner thread only.
    ///
    /// - Complexity: O(name length / 8) for the key, then one slot probed. - Allocations: none.
    public func lookahead(_ channel: ByteRange?, in bytes: Span<UInt8>, _ prefetch: (Span<UInt>) -> Void) {
        // The look-ahead's own list, emptied in place: a fresh one a call zeroed its eleven words (a
        // call of its own, about 15 instructions a line).
        lookahead.lines.removeAll()
        let key = ChannelIndex.key(for: bytes.extracting(channel?.range ?? 0..<0))
        unsafe lookahead.lines.add(byName.homeSlot(of: key))
        if lookahead.ring != 0 {
            // SAFETY: an address of a ring the store keeps alive (from its index).
            unsafe Self.ring(at: lookahead.ring)._withUnsafeGuaranteedRef { $0.appendTargets(into: &lookahead.lines) }
            lookahead.ring = 0
        }
        let previous = lookahead.shown &- 1
        lookahead.show(key)
        if previous >= 0, let entry = lookahead.find(previous, in: byName) {
            // SAFETY: the address of an object the store keeps alive; only lent as a hint, never read here.
            let ring = unsafe UnsafeRawPointer(bitPattern: entry.ring)!
            // The ring's fields an append reads (its indexes, the owner's copies of its byte storage
            // and slot table) lie in its first three lines.
            unsafe lookahead.lines.add(ring)
            unsafe lookahead.lines.add(ring + 64)
            unsafe lookahead.lines.add(ring + 128)
            lookahead.ring = entry.ring
        }
        lookahead.lines.withAddresses(prefetch)
    }
}

/// The addresses one ``ChatStore/lookahead(_:in:_:)`` call lends, gathered on the stack and lent in
/// one call: a call per address through the caller's closure cost about as many instructions as the
/// look-ahead's own work.
struct CacheLineList {
    /// The most one call gathers: an index slot, three lines of a ring, and seven lines of another
    /// ring's next append (six, and its region's head when it is about to grow).
    static let capacity = 11
    private var addresses = InlineArray<11, UInt>(repeating: 0)
    private var count = 0

    /// Empties the list (the words stay as they were: only `count` says what is in).
    @inline(__always)
    mutating func removeAll() { count = 0 }

    /// Adds `address` (the list holds fewer than ``capacity``).
    @inline(__always)
    mutating func add(_ address: UnsafeRawPointer) {
        assert(count < Self.capacity, "at most capacity addresses a call")
        addresses[count] = UInt(bitPattern: address)
        count &+= 1
    }

    /// Lends `body` the addresses added, in order.
    @inline(__always)
    func withAddresses(_ body: (Span<UInt>) -> Void) { body(addresses.span.extracting(0..<count)) }
}

/// The look-ahead's memory: the keys of the last lines ``ChatStore/lookahead(_:in:_:)`` was shown and
/// the index entries it found for them, by the order they were shown, for their appends to take.
struct ChannelLookahead {
    /// Lines remembered: the one ``ChatStore/lookaheadDistance`` lines ahead, those between, and the
    /// one being appended (a power of two: the slots are taken modulo it).
    private static let depth = ChatStore.lookaheadDistance + 1
    private var keys = InlineArray<4, ChannelIndex.Key>(
        repeating: ChannelIndex.Key(hash: 0, length: -1, words: InlineArray(repeating: 0)))
    private var entries = InlineArray<4, ChannelIndex.Entry?>(repeating: nil)
    /// Lines shown so far.
    private(set) var shown = 0
    /// The ring found for the line shown before the last one, whose next slot and bytes the next call
    /// lends (0: none).
    var ring: UInt = 0
    /// The addresses of a call, kept between calls so that none zeroes a list of its own.
    var lines = CacheLineList()

    /// Remembers the key of the line just shown.
    mutating func show(_ key: ChannelIndex.Key) {
        assert(keys.count == Self.depth && Self.depth & (Self.depth - 1) == 0, "depth slots, a power of two")
        keys[shown & (Self.depth - 1)] = key
        entries[shown & (Self.depth - 1)] = nil
        shown &+= 1
    }

    /// Finds the entry of line `number` (shown earlier, still remembered) in `index`, and remembers it.
    /// Names longer than ``ChannelIndex/inlineBytes`` are not looked up (their lookup confirms them
    /// against the log).
    mutating func find(_ number: Int, in index: borrowing ChannelIndex) -> ChannelIndex.Entry? {
        let key = keys[number & (Self.depth - 1)]
        guard key.length >= 0 && key.length <= ChannelIndex.inlineBytes,
            let entry = index.entry(for: key, confirm: { _ in true })
        else { return nil }
        entries[number & (Self.depth - 1)] = entry
        return entry
    }

    /// What the look-ahead knows of the line being appended now, `name`'s (shown `depth` calls ago,
    /// when each line between was shown in turn): its key, and its entry when it found one. `nil`
    /// when that line was not `name`'s (a line not shown, or shown out of turn).
    ///
    /// - Complexity: O(1): a comparison of the names' first 32 bytes. - Allocations: none.
    @inline(__always)
    func take(_ name: Span<UInt8>) -> (key: ChannelIndex.Key, entry: ChannelIndex.Entry?)? {
        let slot = shown & (Self.depth - 1)  // line `shown - depth`
        let key = keys[slot]
        guard key.length == name.count, key.length <= ChannelIndex.inlineBytes,
            ChannelIndex.sameWords(key.words, ChannelIndex.words(of: name))
        else { return nil }
        return (key, entries[slot])
    }
}
