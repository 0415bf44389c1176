import ChatIndex
public import ChatMemory
public import IRCWire
import Synchronization

/// All kept chat of a process: one ``ChannelLog`` per channel (created on first sight), one
/// ``Interner`` for every channel, the shared-chat index, the reader registry and the view model.
///
/// Logs live in a table that grows without moving what readers see: a fixed directory of chunks of
/// ``chunkSize`` slots, each chunk allocated when the first of its channels appears and never moved.
///
/// ```
///  directory: [chunk 0 ─► log 0 … log 255][chunk 1 ─► log 256 … 511][nil]…[nil]   (1,024 chunks)
///  logCount:  published (release) after the log and its chunk are written
/// ```
///
/// Threads: ``ingest(_:receivedAt:)`` and the other mutating calls run on the owner (the ingest
/// loop). Other threads find logs with ``log(at:)``/``log(named:)`` (lock-free: a log and its chunk
/// are written before the count that covers them is released) and read them through a ``Reader``
/// from ``readers``.
@safe
public final class ChatStore: @unchecked Sendable {  // owner-only mutable state; the log table is published atomically
    /// The most channels one store can hold (the directory's chunks × their size).
    public static let maximumChannels = directorySize * chunkSize
    static let chunkSize = 256
    static let directorySize = 1_024
    public let capacity: Int
    /// The most channels this store holds (``maximumChannels`` unless lowered, e.g. by a test):
    /// a line of any further channel is refused with ``StoreError/tooManyChannels(_:)``.
    public let channelLimit: Int
    public let interner: Interner
    public let readers = ReaderRegistry()
    public let viewModel: ViewModel
    /// Mark shared-chat mirrors (same `source-id` already kept in another channel) as such.
    public var dedupeSharedChat: Bool
    /// Whether appends intern each entry's sender strings (login, display name, colour, badges)
    /// into ``interner`` and record the tokens in ``EntryInfo/sender``. Off, entries carry
    /// ``SenderTokens/init()`` and the interner stays empty.
    public let internsSenders: Bool
    /// Where busy channels' byte storage comes from (`nil`: allocated, moved when it grows).
    public var pages: PageMapping? { regions?.pages }
    /// ``pages`` with the regions of ``EntryRing/regionBytes`` small channels' bytes grow in (every
    /// ring holds it).
    let regions: PageRegions?
    /// The process-wide bound on what rings reserve, if any (``ChatStore+Budget.swift``).
    public let budget: MemoryBudget?
    /// Entries the budget leaves in every channel: the view model's window (what `watch` shows and
    /// publishes), at most ``capacity``.
    public let budgetFloor: Int
    /// Per channel index, the first sequence number its reader still needs (the moderation
    /// look-ahead's first held line): the budget trims only below it. Asked during a trimming pass
    /// only, never per line. Owner thread.
    public var budgetKeeps: ((Int) -> UInt64)? = nil
    /// Channels by last append, for the budget (kept only with one).
    var recency = ChannelRecency()
    /// What ``lookahead(_:in:_:)`` found for the lines it was shown, for their appends.
    var lookahead = ChannelLookahead()

    /// `directorySize` chunk pointers (nil until a chunk's first channel), each `chunkSize` logs.
    private let chunks: UnsafeMutablePointer<UnsafeMutablePointer<ChannelLog?>?>
    private let logCount = Atomic<Int>(0)
    /// Channel name (byte for byte) → its log's and ring's addresses (kept alive by `chunks`) and number.
    private(set) var byName: ChannelIndex
    private var shared: HashIndex

    /// - Parameters:
    ///   - capacity: entries kept per channel (default 2,500).
    ///   - windowSize: entries per view-model window (default 150).
    ///   - interval: view-model coalescing interval in milliseconds.
    ///   - internsSenders: intern the sender strings of every entry (for readers that render or
    ///     compare by ``Token``). Four interner lookups, and four releases on eviction, per line: a
    ///     consumer that reads names from the entry bytes (replay, dump) turns it off.
    ///   - pages: where a channel's byte storage comes from once it is busy (``EntryRing/mappedBytesDefault``):
    ///     mapped, it grows in place, never copied; from 4 KB, in a region of ``EntryRing/regionBytes``
    ///     carved from it (``PageRegions``). The OS layer passes `PageMapping.system`.
    ///   - budget: the process-wide bound on what rings reserve (shared by every store given it);
    ///     `nil`: each ring keeps up to `capacity` entries.
    public convenience init(
        capacity: Int = EntryRing.defaultCapacity, windowSize: Int = 150, interval: Int64 = 33,
        dedupeSharedChat: Bool = false,
        internsSenders: Bool = true, pages: PageMapping? = nil, budget: MemoryBudget? = nil
    ) {
        self.init(
            capacity: capacity, windowSize: windowSize, interval: interval, dedupeSharedChat: dedupeSharedChat,
            internsSenders: internsSenders, channelLimit: Self.maximumChannels, pages: pages, budget: budget)
    }

    /// A store that holds at most `channelLimit` channels (clamped to 1…``maximumChannels``): for
    /// tests of what happens past the limit without creating 262,144 channels.
    package init(
        capacity: Int = EntryRing.defaultCapacity, windowSize: Int = 150, interval: Int64 = 33,
        dedupeSharedChat: Bool = false,
        internsSenders: Bool = true, channelLimit: Int, pages: PageMapping? = nil, budget: MemoryBudget? = nil,
        budgetFloor: Int? = nil
    ) {
        regions = pages.map { PageRegions(pages: $0, regionBytes: EntryRing.regionBytes) }
        self.budget = budget
        self.budgetFloor = min(max(budgetFloor ?? windowSize, 1), capacity)
        self.capacity = capacity
        self.channelLimit = min(max(channelLimit, 1), Self.maximumChannels)
        self.internsSenders = internsSenders
        interner = internsSenders ? Interner() : Interner(expected: 16)  // unused when off: keep it tiny
        viewModel = ViewModel(windowSize: windowSize, interval: interval)
        self.dedupeSharedChat = dedupeSharedChat
        unsafe chunks = .allocate(capacity: Self.directorySize)
        unsafe chunks.initialize(repeating: nil, count: Self.directorySize)
        // Both grow (owner-only rehash) with the channels and the shared-chat messages kept.
        byName = ChannelIndex(minimumCapacity: 64)
        shared = HashIndex(minimumCapacity: 64)
    }

    deinit {
        for c in 0..<Self.directorySize {
            // SAFETY: `c < directorySize`; an allocated chunk holds `chunkSize` initialised optionals.
            guard let chunk = unsafe chunks[c] else { continue }
            unsafe chunk.deinitialize(count: Self.chunkSize)
            unsafe chunk.deallocate()
        }
        unsafe chunks.deallocate()
    }

    /// The log in slot `index`. Unsafe: `index` must be below a count loaded with acquire ordering
    /// (or the owner's own count), so that its chunk and slot are written and visible.
    @unsafe
    @inline(__always)
    private func slot(_ index: Int) -> ChannelLog {
        unsafe chunks[index / Self.chunkSize]![index % Self.chunkSize]!
    }

    /// Channels known so far.
    public var channelCount: Int { logCount.load(ordering: .acquiring) }

    /// The log at `index` (any thread).
    public func log(at index: Int) -> ChannelLog? {
        guard index >= 0 && index < logCount.load(ordering: .acquiring) else { return nil }
        // SAFETY: slots below the published count were written before the count was released.
        return unsafe slot(index)
    }

    /// The log of channel `name` (login without `#`; "" for connection-level lines), any thread.
    public func log(named name: String) -> ChannelLog? {
        // SAFETY: `i` is below the count loaded with acquire ordering.
        for i in 0..<logCount.load(ordering: .acquiring) where unsafe slot(i).name == name { return unsafe slot(i) }
        return nil
    }

    /// Where an ingested line went.
    public struct Placement: Sendable, Equatable {
        public var channel: Int
        public var seq: UInt64
        /// The entry pushed out to make room, if the ring was full.
        public var evicted: UInt64?
        /// The evicted entry's moderation marks when it was pushed out (`.none` without an eviction).
        public var evictedTombstone: Tombstone
        /// A shared-chat copy of a message already kept in another channel (marked only when
        /// de-duplication is on).
        public var isMirror: Bool
    }

    /// Parses nothing: appends an already parsed line to its channel's log (creating the log on
    /// first sight) and applies its moderation. Owner thread only.
    ///
    /// - Complexity: O(line). - Allocations: none in steady state (one per new channel).
    public func append(_ bytes: Span<UInt8>, message: TwitchMessage, receivedAt: Timestamp) throws(StoreError)
        -> Placement
    {
        let entry = try channelEntry(message.channel, in: bytes)
        // Borrowed, not retained: with thousands of channels the log object is a cache miss, and an
        // atomic increment of its count there stalls where a load would not. The ring comes from the
        // channel index's slot, not from the log object: the common path never loads the log's lines.
        // SAFETY: the index holds the addresses of logs and rings the store keeps alive as long as itself.
        return unsafe Self.log(at: entry.log)._withUnsafeGuaranteedRef { log in
            unsafe Self.ring(at: entry.ring)._withUnsafeGuaranteedRef { ring in
                append(bytes, message: message, receivedAt: receivedAt.milliseconds, to: log, ring, entry.channel)
            }
        }
    }

    private func append(
        _ bytes: Span<UInt8>, message: TwitchMessage, receivedAt: Int64, to log: ChannelLog, _ ring: EntryRing,
        _ channel: Int
    ) -> Placement {
        let sourceIdHash = Self.sharedChatKey(message.command, message.tags[.sourceId], in: bytes)
        var isMirror = false
        if sourceIdHash != 0 {
            if let first = shared.value(for: sourceIdHash), Int(first >> 48) != channel {
                isMirror = dedupeSharedChat
            } else {
                shared.insert(UInt64(channel) << 48 | (ring.nextSeq & 0xFFFF_FFFF_FFFF), for: sourceIdHash)
            }
        }
        var evicted: ChannelLog.Evicted? = nil
        let reserved = budget == nil ? 0 : ring.reservedBytes
        let seq = unsafe log.append(
            bytes, message: message, receivedAt: receivedAt, isMirror: isMirror, sourceIdHash: sourceIdHash,
            // Unretained (the store keeps it): `internsSenders ? interner : nil` made a strong optional
            // a line, a retain and a release, and another of each in the eviction's closure.
            evicted: &evicted, ring: ring, interner: internsSenders ? unsafe .passUnretained(interner) : nil)
        viewModel.markDirty(channel)
        if let e = evicted { forgetShared(e, of: channel) }
        // Borrowed: `if let budget` of the property retained and released it a line.
        if let budgetRef = unsafe budget.map({ unsafe Unmanaged.passUnretained($0) }) {
            unsafe budgetRef._withUnsafeGuaranteedRef { budget in
                let grown = ring.reservedBytes - reserved
                if grown != 0 { budget.add(grown) }
                recency.touch(channel)
                if budget.isOver { trimToBudget(budget) }
            }
        }
        return Placement(
            channel: channel, seq: seq, evicted: evicted?.seq, evictedTombstone: evicted?.tombstone ?? .none,
            isMirror: isMirror)
    }

    /// Drops an entry that left `channel`'s ring from the shared-chat index, if the index points at it.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    func forgetShared(_ e: ChannelLog.Evicted, of channel: Int) {
        if e.sourceIdHash != 0, shared.value(for: e.sourceIdHash) == UInt64(channel) << 48 | (e.seq & 0xFFFF_FFFF_FFFF)
        {
            shared.remove(e.sourceIdHash)
        }
    }

    /// The key in the shared-chat index of a line of `command` whose `source-id` tag is `source`: the
    /// hash of its value for a PRIVMSG or USERNOTICE with a non-empty one; 0 otherwise. On append
    /// from the tags the parse sorted; on eviction from the slot's command and one walk of the tag
    /// section (``ParsedLine/tag(_:in:)``, the last duplicate wins as in ``TwitchTags``), not a whole
    /// ``TwitchMessage`` parse again (that sort was 3% of `replay --format raw`'s CPU on `bench.irc`,
    /// where 7.6% of the lines are shared chat; its instructions 5,514 → 5,397 million).
    ///
    /// - Complexity: O(value length). - Allocations: none.
    @inline(__always)
    static func sharedChatKey(
        _ command: TwitchCommand, _ source: @autoclosure () -> TagValue?, in bytes: Span<UInt8>
    ) -> UInt64 {
        // `source` only once the command qualifies: looked up for every line first, the tag cost append
        // 6 instructions a line and eviction 4 (cachegrind, 300,000 lines over 1,000 channels).
        guard command == .privmsg || command == .usernotice, let source = source(), !source.raw.isEmpty else {
            return 0
        }
        return hashBytes(bytes, source.raw.range)
    }

    /// Parses one line and appends it. Owner thread only.
    public func ingest(_ bytes: Span<UInt8>, receivedAt: Timestamp) throws(StoreError) -> Placement {
        let message: TwitchMessage
        do throws(LineError) { message = try TwitchMessage.parse(bytes) } catch { throw .malformed(error) }
        return try append(bytes, message: message, receivedAt: receivedAt)
    }

    /// The view model's tick: publishes the windows of the channels that changed since the last
    /// tick, at most once per coalescing interval (every call before that returns at once), or now
    /// with `force` (at the end of the input). Call it as often as convenient — per line is fine.
    /// Owner thread only.
    ///
    /// - Complexity: O(1) when no tick is due; O(channels changed since the last tick) otherwise.
    /// - Allocations: none in steady state.
    public func publish(now: Int64, force: Bool = false) {
        unsafe viewModel.publishDirty(now: now, force: force) { index in
            guard index >= 0 && index < logCount.load(ordering: .relaxed) else { return nil }
            // SAFETY: below the owner's count: the chunk and the slot are written; a `ChannelLog?` is
            // stored as the object's address (never nil there). Read unretained: the store keeps it alive.
            let chunk = unsafe UnsafeRawPointer(chunks[index / Self.chunkSize]!)
            let address = unsafe chunk.load(
                fromByteOffset: index % Self.chunkSize * MemoryLayout<ChannelLog?>.stride, as: UnsafeRawPointer.self)
            return unsafe Unmanaged<ChannelLog>.fromOpaque(address)
        }
    }

    /// The number of the channel `message` goes to (its log's ``ChannelLog/index``), the log created
    /// on first sight. Owner thread only.
    ///
    /// - Complexity: as ``append(_:message:receivedAt:)``'s lookup. - Allocations: none for a known channel.
    public func channelNumber(for message: TwitchMessage, in bytes: Span<UInt8>) throws(StoreError) -> Int {
        try channelEntry(message.channel, in: bytes).channel
    }

    /// The channel index's entry for `channel` (its log, ring and number), the log created on first
    /// sight. Owner thread only.
    ///
    /// - Complexity: O(name) for the key, then O(1) expected: one slot of ``ChannelIndex`` (one cache
    ///   line) confirms the name and gives the ring, without loading the log object.
    /// - Allocations: none for a known channel; a new one allocates its log and ring, and its chunk
    ///   of the directory and a doubling of the index now and then.
    private func channelEntry(_ channel: ByteRange?, in bytes: Span<UInt8>) throws(StoreError) -> ChannelIndex.Entry {
        let name = bytes.extracting(channel?.range ?? 0..<0)
        let ahead = lookahead.take(name)
        if let entry = ahead?.entry { return entry }
        let key = ahead?.key ?? ChannelIndex.key(for: name)
        let found = byName.entry(for: key) { entry in
            // SAFETY: the index holds the addresses of logs its chunks keep alive as long as the store.
            unsafe Self.log(at: entry.log)._withUnsafeGuaranteedRef { $0.hasName(name) }
        }
        if let found { return found }
        let index = logCount.load(ordering: .relaxed)
        guard index < channelLimit else { throw .tooManyChannels(channelLimit) }
        let log = ChannelLog(
            name: name, index: index, capacity: capacity, interner: internsSenders ? interner : nil,
            regions: regions)
        let c = index / Self.chunkSize
        // SAFETY: `c < directorySize` (`index < channelLimit <= maximumChannels`, checked above); a new chunk is initialised before use, and
        // both the chunk pointer and the slot are written before the count is released.
        if unsafe chunks[c] == nil {
            let chunk = UnsafeMutablePointer<ChannelLog?>.allocate(capacity: Self.chunkSize)
            unsafe chunk.initialize(repeating: nil, count: Self.chunkSize)
            unsafe chunks[c] = chunk
        }
        unsafe chunks[c]![index % Self.chunkSize] = log
        budget?.add(log.ring.reservedBytes)
        logCount.store(index + 1, ordering: .releasing)
        let entry = unsafe ChannelIndex.Entry(
            log: UInt(bitPattern: Unmanaged.passUnretained(log).toOpaque()),
            ring: UInt(bitPattern: Unmanaged.passUnretained(log.ring).toOpaque()), channel: index)
        byName.insert(key, entry)
        return entry
    }

    /// The log whose address ``byName`` holds. Unsafe: `address` must be one ``byName`` holds.
    @unsafe
    @inline(__always)
    private static func log(at address: UInt) -> Unmanaged<ChannelLog> {
        unsafe Unmanaged<ChannelLog>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
    }

    /// The ring whose address ``byName`` holds. Unsafe: `address` must be one ``byName`` holds.
    @unsafe
    @inline(__always)
    static func ring(at address: UInt) -> Unmanaged<EntryRing> {
        unsafe Unmanaged<EntryRing>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
    }
}

/// Why the store refused a line.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(LineError)
    /// The line's channel is new and the store already holds its limit of channels (the payload).
    case tooManyChannels(Int)

    public var description: String {
        switch self {
        case .malformed(let error): "malformed line: \(error)"
        case .tooManyChannels(let limit): "more channels than the limit of \(limit)"
        }
    }
}
