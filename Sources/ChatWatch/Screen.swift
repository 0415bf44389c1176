/// What the terminal shows, row by row, and the bytes that turn it into the next frame.
///
/// ``update(to:width:scrollable:into:)`` compares the next frame with the current one and writes
/// only rows that differ. When the rows of the scrollable region (the messages) moved up — new
/// chat at the bottom — it scrolls the region with the terminal (DECSTBM + SU) first, so that only
/// the rows that are really new are written. A size change, or ``invalidate()``, repaints all.
///
/// Confined to the UI thread.
public struct Screen: Sendable {
    public private(set) var rows: [ScreenRow] = []
    public private(set) var width = 0
    private var valid = false

    public init() {}

    /// What one update did.
    public struct Update: Sendable, Equatable {
        /// Rows written (including rows blanked).
        public var rowsWritten = 0
        /// Rows the region was scrolled by (0: none).
        public var scrolled = 0
        /// Whether the screen was cleared and repainted.
        public var repainted = false
        public var isEmpty: Bool { rowsWritten == 0 && scrolled == 0 && !repainted }
    }

    /// Forgets what the terminal shows: the next update repaints every row.
    public mutating func invalidate() { valid = false }

    /// Appends to `out` the bytes that change the terminal from the current rows to `next` (one
    /// per terminal row, top first), and makes `next` current.
    ///
    /// - Parameter scrollable: rows that may be scrolled as a block (the message area).
    /// - Complexity: O(rows²) row-hash comparisons for the scroll search, O(bytes) otherwise.
    public mutating func update(to next: [ScreenRow], width: Int, scrollable: Range<Int>, into out: inout [UInt8])
        -> Update
    {
        var result = Update()
        if !valid || rows.count != next.count || self.width != width {
            out.append(contentsOf: Control.reset)
            out.append(contentsOf: Control.eraseScreen)
            for (i, row) in next.enumerated() where !row.bytes.isEmpty {
                Control.moveTo(row: i + 1, &out)
                out.append(contentsOf: row.bytes)
                result.rowsWritten += 1
            }
            result.repainted = true
            rows = next
            self.width = width
            valid = true
            return result
        }
        var shown = rows
        let region = scrollable.clamped(to: 0..<next.count)
        let shift = Self.bestShift(from: rows[region], to: next[region])
        if shift > 0 {
            Control.scrollUp(top: region.lowerBound + 1, bottom: region.upperBound, count: shift, &out)
            for i in region {
                shown[i] = i + shift < region.upperBound ? rows[i + shift] : .blank
            }
            result.scrolled = shift
        }
        for i in 0..<next.count where next[i] != shown[i] {
            Control.moveTo(row: i + 1, &out)
            out.append(contentsOf: next[i].bytes)
            if next[i].width < width { out.append(contentsOf: Control.eraseLine) }
            result.rowsWritten += 1
        }
        rows = next
        return result
    }

    /// The upward shift of `old` that leaves the most rows of `new` already in place, if it saves
    /// at least two row writes over not scrolling; else 0.
    static func bestShift(from old: ArraySlice<ScreenRow>, to new: ArraySlice<ScreenRow>) -> Int {
        let n = old.count
        guard n > 2, new.count == n else { return 0 }
        let a = old.map { $0.bytes.isEmpty ? 0 : $0.hashValue }
        let b = new.map { $0.bytes.isEmpty ? 0 : $0.hashValue }
        let o = old.startIndex
        let m = new.startIndex
        func matches(_ k: Int) -> Int {
            var count = 0
            for i in 0..<(n - k) where b[i] != 0 && a[i + k] == b[i] && old[o + i + k] == new[m + i] { count += 1 }
            return count
        }
        let baseline = matches(0)
        var best = 0
        var bestCount = baseline
        for k in 1..<n {
            if n - k <= bestCount { break }  // cannot beat the best any more
            let c = matches(k)
            if c > bestCount {
                best = k
                bestCount = c
            }
        }
        return bestCount >= baseline + 2 ? best : 0
    }
}
