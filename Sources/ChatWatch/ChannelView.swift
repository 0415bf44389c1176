public import ChatStore
import IRCWire

/// The UI's view of one channel: its latest window, its entries laid out as rows (cached by
/// sequence number), and where it is scrolled to.
///
/// Live, the view's bottom is the bottom of the latest window; scrolled (``anchor`` set), it stays
/// on the entries it shows while chat goes on below (counted in ``newBelow``), back through the
/// ring's whole history. Rows are laid out once per entry: a change set re-lays out only what it
/// marks modified (tombstones); a width or filter change lays out again.
///
/// ```
///  ring:   lowest … [ … history … | window (last N) ]  tail
///  screen:            ^top entry      ^anchor (or the window's end, live)
/// ```
///
/// Confined to the UI thread.
public final class ChannelView {
    public let name: String
    public private(set) var index: Int?
    private(set) var mailbox: WindowMailbox?
    /// The latest window taken from the mailbox.
    public private(set) var window: Window?
    /// The view's bottom (exclusive sequence number) while scrolled; `nil` follows the live tail.
    public private(set) var anchor: UInt64? = nil
    /// Shown entries after the view's bottom while scrolled: chat that arrived (or was scrolled
    /// past) and is not on screen.
    public private(set) var newBelow = 0
    /// Rows per entry for ``layoutWidth`` and the formatter's filter (empty: not shown).
    private var rows: [UInt64: [ScreenRow]] = [:]
    private var layoutWidth = 0
    /// What the last ``compose(height:width:with:)`` showed, top to bottom.
    private(set) var shown: [(seq: UInt64, rows: Int)] = []
    /// Whether older entries exist above the top of the view.
    private(set) var moreAbove = false
    /// Shown entries counted in `from ..< to` (for ``newBelow``).
    private var counted: (from: UInt64, to: UInt64, count: Int)? = nil

    public init(name: String) { self.name = name }

    /// Whether the view follows the live tail.
    public var isLive: Bool { anchor == nil }

    package func attach(index: Int, mailbox: WindowMailbox) {
        self.index = index
        self.mailbox = mailbox
    }

    /// What a change set means for the screen.
    public enum Effect: Sendable, Equatable {
        /// Nothing shown changed (say, a tombstone on an entry off screen).
        case none
        /// Rows changed: compose and write the rows that differ.
        case rows
    }

    /// Folds a change set in: forgets the rows of entries it modified (they are laid out again
    /// when next shown), notes the new window, and says whether the screen must change. Inserted
    /// entries move the live tail (or, scrolled back, the count of new rows below); modified ones
    /// matter when they are on screen.
    @discardableResult
    public func apply(_ change: WindowChange) -> Effect {
        defer { window = change.window }
        if change.modified.overflowed {
            rows.removeAll(keepingCapacity: true)
            return .rows
        }
        var effect: Effect = window == nil || !change.inserted.isEmpty ? .rows : .none
        // `ModifiedSeqs` is not a Sequence (it never allocates): its own forEach walks it.
        // swift-format-ignore: ReplaceForEachWithForLoop
        change.modified.forEach { seq in
            rows[seq] = nil
            if shown.contains(where: { $0.seq == seq }) { effect = .rows }
        }
        return effect
    }

    /// Forgets every laid-out row (the filter changed).
    public func relayout() {
        rows.removeAll(keepingCapacity: true)
        counted = nil
    }

    /// The message rows of the view, exactly `height` of them (blank rows at the end when the
    /// chat does not fill the screen).
    ///
    /// - Complexity: O(entries on screen) when laid out already; each new entry is read through
    ///   the ring once. While scrolled, O(entries that arrived since the last call) to count them.
    public func compose(height: Int, width: Int, with context: LayoutContext) -> [ScreenRow] {
        shown.removeAll(keepingCapacity: true)
        moreAbove = false
        guard height > 0 else { return [] }
        guard let index, let log = context.store.log(at: index), let window else {
            return Array(repeating: .blank, count: height)
        }
        if width != layoutWidth {
            rows.removeAll(keepingCapacity: true)
            layoutWidth = width
        }
        let live = log.ring.liveRange
        prune(below: live.lowerBound, capacity: log.ring.capacity)
        let tail = window.range.upperBound
        if let a = anchor, a >= tail { anchor = nil }
        if let a = anchor, a <= live.lowerBound {
            // The view's entries were evicted under it: move to the oldest page still kept.
            setAnchor(pageEnd(from: live.lowerBound, height: height, log, context))
        }
        let bottom = anchor ?? tail
        var picked: [(seq: UInt64, rows: [ScreenRow])] = []
        var total = 0
        var seq = bottom
        while total < height && seq > live.lowerBound {
            seq -= 1
            guard let r = entryRows(seq, log, context) else { break }
            if r.isEmpty { continue }
            picked.append((seq, r))
            total += r.count
        }
        if let a = anchor, total < height, seq <= live.lowerBound {
            // Scrolled to the start of the history with room to spare: show its first full page.
            let first = pageEnd(from: live.lowerBound, height: height, log, context)
            if first > a {
                setAnchor(first)
                return compose(height: height, width: width, with: context)
            }
        }
        moreAbove = total > height || (total == height && seq > log.ring.liveRange.lowerBound)
        var out: [ScreenRow] = []
        out.reserveCapacity(height)
        var skip = max(0, total - height)
        for (s, r) in picked.reversed() {
            let visible = r.dropFirst(skip)
            shown.append((s, visible.count))
            out.append(contentsOf: visible)
            skip = max(0, skip - r.count)
        }
        while out.count < height { out.append(.blank) }
        newBelow = anchor == nil ? 0 : countShown(from: bottom, to: tail, log, context)
        return out
    }

    // MARK: Scrolling

    /// Up by one entry.
    public func lineUp() {
        guard moreAbove, let bottom = shown.last?.seq else { return }
        anchor = bottom
    }

    /// Down by one entry; back to live at the end.
    public func lineDown(with context: LayoutContext) {
        guard let a = anchor, let index, let log = context.store.log(at: index) else { return }
        var seq = a
        while let tail = window?.range.upperBound, seq < tail {
            guard let r = entryRows(seq, log, context) else { break }
            seq += 1
            if !r.isEmpty { break }
        }
        setAnchor(seq)
    }

    /// Up by a page: the top entry becomes the bottom one.
    public func pageUp() {
        guard moreAbove, let top = shown.first?.seq, let bottom = shown.last?.seq else { return }
        anchor = top == bottom ? top : top + 1
    }

    /// Down by a page: the bottom entry becomes the top one; back to live at the end.
    public func pageDown(height: Int, with context: LayoutContext) {
        guard let a = anchor, let index, let log = context.store.log(at: index) else { return }
        setAnchor(pageEnd(from: max(a, 1) - 1, height: height, log, context))
    }

    /// To the oldest entry the ring still holds.
    public func top(height: Int, with context: LayoutContext) {
        guard let index, let log = context.store.log(at: index) else { return }
        setAnchor(pageEnd(from: log.ring.liveRange.lowerBound, height: height, log, context))
    }

    /// Back to the live tail.
    public func follow() { anchor = nil }

    private func setAnchor(_ seq: UInt64) {
        if let tail = window?.range.upperBound, seq >= tail { anchor = nil } else { anchor = seq }
    }

    /// The bottom (exclusive) of a page whose top is the first shown entry at or after `start`.
    private func pageEnd(from start: UInt64, height: Int, _ log: ChannelLog, _ context: LayoutContext) -> UInt64 {
        let tail = window?.range.upperBound ?? start
        var seq = max(start, log.ring.liveRange.lowerBound)
        var total = 0
        while seq < tail {
            guard let r = entryRows(seq, log, context) else { break }
            if total + r.count > height && total > 0 { break }
            total += r.count
            seq += 1
        }
        return seq
    }

    // MARK: Entries

    /// Rows of entry `seq` (laid out on first use), `[]` when not shown, `nil` when it is gone.
    private func entryRows(_ seq: UInt64, _ log: ChannelLog, _ context: LayoutContext) -> [ScreenRow]? {
        if let r = rows[seq] { return r }
        // Only the styled text is built while the entry is borrowed; wrapping happens after.
        let lookup = log.ring.withEntry(seq, reader: context.reader) { info, bytes in
            context.formatter.format(info, bytes)
        }
        guard case .found(let text) = lookup else { return nil }
        let r = text?.wrapped(width: layoutWidth, indent: EntryFormatter.indent) ?? []
        rows[seq] = r
        return r
    }

    /// Shown entries in `from ..< to`, counted incrementally across calls with the same start.
    private func countShown(from: UInt64, to: UInt64, _ log: ChannelLog, _ context: LayoutContext) -> Int {
        var c = counted?.from == from ? counted! : (from: from, to: from, count: 0)
        var seq = max(c.to, log.ring.liveRange.lowerBound)
        // Entries already laid out answer from the cache; the rest are checked by command and filter.
        while seq < to, let r = rows[seq] {
            if !r.isEmpty { c.count += 1 }
            seq += 1
        }
        if seq < to {
            var n = 0
            log.ring.withEntries(in: seq..<to, reader: context.reader) { info, bytes in
                guard EntryFormatter.isShown(info.command) else { return }
                if let filter = context.formatter.filter {
                    guard filter.matches(TwitchMessage(info.parsed, in: bytes), in: bytes) else { return }
                }
                n += 1
            }
            c.count += n
        }
        c.to = max(c.to, to)
        counted = c
        return c.count
    }

    /// Drops rows of evicted entries once the cache holds more than a ring's worth.
    private func prune(below lowest: UInt64, capacity: Int) {
        guard rows.count - 256 > capacity else { return }  // `capacity + 256` overflows for Int.max
        rows = rows.filter { $0.key >= lowest }
    }
}

@available(*, unavailable)
extension ChannelView: Sendable {}

/// What laying out entries needs: the store, this thread's reader, and the formatter (filter).
public struct LayoutContext: Sendable {
    public let store: ChatStore
    public let reader: Reader
    public var formatter: EntryFormatter

    public init(store: ChatStore, reader: Reader, formatter: EntryFormatter = EntryFormatter()) {
        self.store = store
        self.reader = reader
        self.formatter = formatter
    }
}
