/// One badge: `name/version` (for `badge-info`, the version is the detail, e.g. months).
public struct Badge: Sendable, Equatable {
    public var name: ByteRange
    /// Raw (tag-escaped) version; empty when the badge has none.
    public var version: ByteRange
}

/// Walks a `badges`/`badge-info`/`source-badges` value: `name/version,name/version`.
///
/// - Complexity: O(1) per badge plus its bytes. - Allocations: none.
public struct BadgeCursor: Sendable {
    private var position: Int
    private let end: Int

    public init(_ value: TagValue?) {
        position = Int(value?.raw.lower ?? 0)
        end = Int(value?.raw.upper ?? 0)
    }

    public mutating func next(in bytes: Span<UInt8>) -> Badge? {
        while position < end {
            let start = position
            let stop = ByteScan.firstIndex(of: UInt8(ascii: ","), in: bytes, from: start, to: end) ?? end
            position = stop + 1
            if stop == start { continue }
            let slash = ByteScan.firstIndex(of: UInt8(ascii: "/"), in: bytes, from: start, to: stop)
            return Badge(
                name: ByteRange(start..<(slash ?? stop)),
                version: ByteRange((slash.map { $0 + 1 } ?? stop)..<stop))
        }
        return nil
    }
}
