import ChatStore
import IRCWire

/// The lines `--apply-moderation` holds back, in input order, each with its own copy of its bytes.
///
/// Each channel gets its own look-ahead: a held line is *final* when its channel's ring has evicted
/// it (no later CLEARMSG/CLEARCHAT can reach it — `dump` could not mark it either), when the
/// look-ahead window has passed on the pipeline's clock, or at the end of the input. The owner writes
/// the first line as soon as it is final, so the output keeps input order while a quiet channel's
/// line waits for its own look-ahead, not for another channel's ring.
///
/// The copy is what lets a busy channel's lines outlive its ring while an earlier line of a quiet
/// channel is still waiting; a line's tombstone is read from its ring while it is there, and frozen
/// here (``noteEviction(channel:seq:tombstone:)``) when the ring evicts it first.
///
/// Not thread-safe: the pipeline's owner thread only.
struct ModerationHold: ~Copyable {
    struct Line {
        var channel: Int
        var seq: UInt64
        /// Offset of the bytes in the (logical, ever-growing) byte stream.
        var start: Int
        var count: Int
        /// Milliseconds on the pipeline's clock after which the line is final (`Int64.max`: never by time).
        var due: Int64
        var parsed: ParsedLine
        var terminator: LineTerminator
        var isMirror: Bool
        /// The line's time, or the time of the line before it in its input, in ms (0: none).
        var time: Int64
    }

    private struct Key: Hashable {
        var channel: Int
        var seq: UInt64
    }

    /// The channel of a held line no ring keeps (its channel is past the store's limit): final at once.
    static let untracked = -1

    private var lines: [Line] = []
    private var head = 0
    private var bytes: [UInt8] = []
    /// Logical offset of `bytes[0]`.
    private var byteBase = 0
    /// Bytes of the lines still held.
    private(set) var heldBytes = 0
    /// Per channel index: the first sequence number not yet written.
    private var firstPending: [UInt64] = []
    /// Per channel index: the lines held now (``firstNeeded(_:)``).
    private var heldPerChannel: [Int32] = []
    /// Tombstones of held lines their ring evicted (only marked ones).
    private var frozen: [Key: Tombstone] = [:]

    var isEmpty: Bool { head == lines.count }
    var count: Int { lines.count - head }
    var first: Line? { head < lines.count ? lines[head] : nil }

    /// Holds a copy of `line`.
    ///
    /// - Complexity: O(line length). - Allocations: amortised none (storage is reused).
    mutating func hold(_ line: Span<UInt8>, _ item: Line) {
        var item = item
        item.start = byteBase + bytes.count
        item.count = line.count
        // SAFETY: the buffer pointer is used only inside the closure, while `line` is borrowed.
        unsafe line.withUnsafeBufferPointer { unsafe bytes.append(contentsOf: $0) }
        heldBytes += line.count
        if head > 4096 && head * 2 > lines.count {
            lines.removeFirst(head)
            head = 0
        }
        lines.append(item)
        if item.channel >= 0 {
            if item.channel >= heldPerChannel.count {
                heldPerChannel.append(contentsOf: repeatElement(0, count: item.channel + 1 - heldPerChannel.count))
            }
            heldPerChannel[item.channel] += 1
        }
    }

    /// The first sequence number of `channel` a held line may still need from its ring (for the
    /// memory budget, which trims only below it): the first not yet written while the channel has
    /// lines held, `UInt64.max` when it has none.
    ///
    /// - Complexity: O(1). - Allocations: none.
    func firstNeeded(_ channel: Int) -> UInt64 {
        channel < heldPerChannel.count && heldPerChannel[channel] > 0 ? pendingStart(channel) : .max
    }

    /// Called before a ring evicts `seq` of `channel`: keeps its tombstone if the line is still held.
    ///
    /// - Complexity: O(1). - Allocations: only for a marked line (rare).
    mutating func noteEviction(channel: Int, seq: UInt64, tombstone: Tombstone) {
        guard tombstone != .none, seq >= pendingStart(channel) else { return }
        frozen[Key(channel: channel, seq: seq)] = tombstone
    }

    /// The tombstone frozen for a held line its ring evicted (removing it), else `.none`.
    mutating func takeFrozen(channel: Int, seq: UInt64) -> Tombstone {
        frozen.removeValue(forKey: Key(channel: channel, seq: seq)) ?? .none
    }

    /// Removes the first line, giving its bytes to `body` first.
    ///
    /// - Complexity: O(1) amortised. - Allocations: none.
    mutating func popFirst<E: Error>(_ body: (Line, Span<UInt8>) throws(E) -> Void) throws(E) {
        guard head < lines.count else { return }
        let line = lines[head]
        let lower = line.start - byteBase
        try body(line, bytes.span.extracting(lower..<lower + line.count))
        head += 1
        heldBytes -= line.count
        setPendingStart(line.channel, line.seq + 1)
        if line.channel >= 0 { heldPerChannel[line.channel] -= 1 }
        if head == lines.count {
            lines.removeAll(keepingCapacity: true)
            head = 0
            byteBase += bytes.count
            bytes.removeAll(keepingCapacity: true)
        } else if lower + line.count > 1 << 20 && (lower + line.count) * 2 > bytes.count {
            let drop = lines[head].start - byteBase
            bytes.removeFirst(drop)
            byteBase += drop
        }
    }

    private func pendingStart(_ channel: Int) -> UInt64 {
        channel >= 0 && channel < firstPending.count ? firstPending[channel] : 0
    }

    private mutating func setPendingStart(_ channel: Int, _ seq: UInt64) {
        guard channel >= 0 else { return }
        if channel >= firstPending.count {
            firstPending.append(contentsOf: repeatElement(0, count: channel + 1 - firstPending.count))
        }
        firstPending[channel] = seq
    }
}
