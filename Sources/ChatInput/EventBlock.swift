import ChatStore
import IRCWire

/// A block of merged events and the bytes of their lines: what the parse-ahead thread fills and the
/// owner reads (``ParseAhead``), handed over whole, then recycled.
///
/// ```
///  bytes:  [ line 0 ][ line 1 ][ line 2 ] … [ line k ]   free …       (byteCapacity)
///  slots:  [ s0 0..<a ][ s1 a..<b ][ s2 b..<b ] …                      (eventCapacity)
///            │ a slot's range into `bytes` (empty for events that lend no bytes)
///  rare:   [ the events that are not lines (malformed, over-long, failed inputs, bare CRs) ]
/// ```
/// Each line's bytes are copied into the block once, one after another. A parsed line is kept as a
/// plain slot (its location without the input's name, its parsed message, its range): no reference
/// is counted and no value witness runs to write or read it. The rare other events are kept whole
/// beside the slots, and their slot points at them. The owner puts back an input name of its own
/// (``lend(_:names:_:)``), so the two threads never touch the same string's reference count.
///
/// Filling and reading allocate nothing once the block exists (its bytes grow only for a line longer
/// than the whole block; the list of rare events grows only past its first 64 in one block).
///
/// Thread safety: touched by one thread at a time; ``ParseAhead`` hands it from the filling thread
/// to the owner and back under its lock, which orders every access.
@safe
final class EventBlock {
    /// One event: for a parsed line its message and location (without the input's name); for any
    /// other event the index of the whole event in ``rare``. Plain bytes (checked in `init`).
    struct Slot {
        var message: TwitchMessage?
        var timestamp: Timestamp?
        var lineNumber: Int
        var byteOffset: UInt64
        var inputIndex: Int
        /// The event's bytes in the block.
        var start: Int32
        var count: Int32
        /// The index in ``rare`` of an event that is not a parsed line; -1 for a line.
        var rare: Int32
        var timeSource: MergedLine.TimeSource
        var terminator: LineTerminator
    }

    /// At most this many events.
    let eventCapacity: Int
    /// Events in the block.
    private(set) var count = 0
    private let slots: UnsafeMutablePointer<Slot>
    /// The events that are not parsed lines, whole (their names left out).
    private var rare: [MergeEvent] = []
    private var storage: UnsafeMutableRawPointer
    /// The bytes the storage holds.
    private(set) var byteCapacity: Int
    /// Bytes of lines copied in so far.
    private(set) var byteCount = 0

    /// - Allocations: the byte storage, the slots and the list of rare events, once.
    init(byteCapacity: Int, eventCapacity: Int) {
        precondition(byteCapacity > 0 && eventCapacity > 0, "a block holds something")
        precondition(byteCapacity <= Int(Int32.max), "a block's ranges are 32-bit")
        precondition(_isPOD(Slot.self), "a slot is plain bytes: written and read without reference counts")
        self.byteCapacity = byteCapacity
        self.eventCapacity = eventCapacity
        unsafe storage = .allocate(byteCount: byteCapacity, alignment: 64)
        unsafe slots = .allocate(capacity: eventCapacity)
        rare.reserveCapacity(64)
    }

    deinit {
        // SAFETY: allocated in init or `makeRoom(for:)`; no other thread holds the block any more.
        // Slots are plain bytes: nothing to deinitialise.
        unsafe storage.deallocate()
        unsafe slots.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Whether one more event with `byteCount` bytes fits.
    func fits(byteCount n: Int) -> Bool { count < eventCapacity && byteCount + n <= byteCapacity }

    /// Empties the block, keeping its storage.
    ///
    /// - Complexity: O(1), O(rare events) when there were any. - Allocations: none.
    func reset() {
        count = 0
        byteCount = 0
        if !rare.isEmpty { rare.removeAll(keepingCapacity: true) }
    }

    /// Grows the byte storage of an empty block to hold `byteCount` bytes (a line longer than the
    /// whole block; for blocks smaller than the framer's line limit).
    ///
    /// - Precondition: the block is empty.
    /// - Allocations: the new storage, when it grows.
    func makeRoom(for n: Int) {
        precondition(isEmpty, "only an empty block grows")
        guard n > byteCapacity else { return }
        precondition(n <= Int(Int32.max), "a block's ranges are 32-bit")
        // SAFETY: the block is empty: nothing refers to the old storage.
        unsafe storage.deallocate()
        unsafe storage = .allocate(byteCount: n, alignment: 64)
        byteCapacity = n
    }

    /// Appends `event` (its input's name left out) and a copy of `bytes`.
    ///
    /// - Precondition: ``fits(byteCount:)`` for `bytes.count`.
    /// - Complexity: O(`bytes.count`). - Allocations: none for a line.
    func append(_ event: MergeEvent, _ bytes: Span<UInt8>) {
        precondition(fits(byteCount: bytes.count), "the event does not fit the block")
        let start = byteCount
        if !bytes.isEmpty {
            unsafe bytes.withUnsafeBytes { source in
                // SAFETY: `start + source.count <= byteCapacity` (checked above): the copy stays inside
                // the storage; the source is the lent line, which does not overlap it.
                unsafe (storage + start).copyMemory(from: source.baseAddress!, byteCount: source.count)
            }
            byteCount += bytes.count
        }
        switch event {
        case .line(let at, let message):
            // SAFETY: `count < eventCapacity` (checked above); a slot is plain bytes, so initialising over
            // an old one leaks nothing.
            unsafe (slots + count).initialize(
                to: Slot(
                    message: message, timestamp: at.timestamp, lineNumber: at.lineNumber, byteOffset: at.byteOffset,
                    inputIndex: at.inputIndex, start: Int32(start), count: Int32(bytes.count), rare: -1,
                    timeSource: at.timeSource, terminator: at.terminator))
        default:
            // SAFETY: as above.
            unsafe (slots + count).initialize(
                to: Slot(
                    message: nil, timestamp: nil, lineNumber: 0, byteOffset: 0, inputIndex: event.location.inputIndex,
                    start: Int32(start), count: Int32(bytes.count), rare: Int32(rare.count), timeSource: .none,
                    terminator: .none))
            rare.append(event.named(""))
        }
        count += 1
    }

    /// Lends event `index` with its input's name from `names` (by ``MergedLine/inputIndex``) and its
    /// bytes to `body`.
    ///
    /// - Precondition: `index < count`.
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    func lend(_ index: Int, names: [String], _ body: (MergeEvent, Span<UInt8>) -> Void) {
        precondition(index >= 0 && index < count, "no such event in the block")
        // SAFETY: `index < count <= eventCapacity`: the slot was initialised by `append` before the
        // block was handed over (the lock orders them).
        let slot = unsafe slots + index
        let start = Int(unsafe slot.pointee.start)
        let length = Int(unsafe slot.pointee.count)
        precondition(start + length <= byteCount, "an event's bytes lie in the block")
        // SAFETY: `start + length <= byteCount <= byteCapacity`: the bytes were copied in by `append`
        // before the block was handed over, and are not written again until the block is given back,
        // after `body` returns. The span does not outlive `body`.
        let base = unsafe storage.assumingMemoryBound(to: UInt8.self) + start
        let bytes = unsafe Span(_unsafeElements: UnsafeBufferPointer(start: base, count: length))
        let name = names[unsafe slot.pointee.inputIndex]
        guard unsafe slot.pointee.rare < 0 else {
            body(rare[Int(unsafe slot.pointee.rare)].named(name), bytes)
            return
        }
        var at = unsafe MergedLine(
            inputName: name, inputIndex: slot.pointee.inputIndex, lineNumber: slot.pointee.lineNumber,
            byteOffset: slot.pointee.byteOffset, timestamp: slot.pointee.timestamp,
            timeSource: slot.pointee.timeSource)
        at.terminator = unsafe slot.pointee.terminator
        // SAFETY: a line's slot holds its message (`rare < 0`).
        unsafe body(.line(at, slot.pointee.message.unsafelyUnwrapped), bytes)
    }
}

@available(*, unavailable)
extension EventBlock: Sendable {}

extension MergeEvent {
    /// The same event with `name` as its input's name; the other fields are copied one by one, so the
    /// old name is not retained.
    func named(_ name: String) -> MergeEvent {
        switch self {
        case .line(let at, let message): .line(at.named(name), message)
        case .malformed(let at, let error): .malformed(at.named(name), error)
        case .skipped(let at, let error): .skipped(at.named(name), error)
        case .inputFailed(let at, let error, let dropped):
            .inputFailed(at.named(name), error, droppedByteCount: dropped)
        case .bareCarriageReturns(let at, let count): .bareCarriageReturns(at.named(name), count: count)
        }
    }
}

extension MergedLine {
    fileprivate func named(_ name: String) -> MergedLine {
        var line = MergedLine(
            inputName: name, inputIndex: inputIndex, lineNumber: lineNumber, byteOffset: byteOffset,
            timestamp: timestamp, timeSource: timeSource)
        line.terminator = terminator
        return line
    }
}
