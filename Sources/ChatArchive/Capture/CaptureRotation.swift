import ChatStore

/// When a capture file is closed and the next one begins.
///
/// Every rotation keeps one file per channel per UTC day at least: `hourly` splits days into hours,
/// `size` starts a numbered continuation of the day file once the file on disk reaches the limit.
///
/// | rotation | names |
/// | --- | --- |
/// | `daily` | `2025-11-21.log.gz` |
/// | `hourly` | `2025-11-21T04.log.gz` |
/// | `size(n)` | `2025-11-21.0000.log.gz`, `2025-11-21.0001.log.gz`, … `2025-11-21.0010.log.gz`, … |
///
/// Size-rotated continuations are numbered with four digits from `0000`, so a shell glob
/// (`zcat c/*.gz`) lists a channel's files in time order (up to 10,000 files per channel per day).
/// Earlier versions wrote `D.log.gz`, `D.1.log.gz`, …: inputs read both (their merge orders lines by
/// time, not by name).
public enum CaptureRotation: Sendable, Equatable, CustomStringConvertible {
    case daily
    case hourly
    /// A new file once the compressed file reaches this many bytes (measured at each write to disk,
    /// so a file may pass the limit by up to one compressed-output buffer), and at each UTC day.
    case size(UInt64)

    /// Parses `daily`, `hourly`, or a size such as `100M`, `512K`, `2G`, `1048576` (K/M/G are powers of 1,024).
    public init?(argument text: String) {
        switch text.lowercased() {
        case "daily": self = .daily
        case "hourly": self = .hourly
        default:
            guard let bytes = Self.byteCount(text) else { return nil }
            self = .size(bytes)
        }
    }

    /// Parses a positive size such as `100M`, `512K`, `2G` or `1048576` (K/M/G are powers of 1,024).
    public static func byteCount(_ text: String) -> UInt64? {
        var digits = Substring(text)
        var unit: UInt64 = 1
        switch digits.last {
        case "k", "K": unit = 1 << 10
        case "m", "M": unit = 1 << 20
        case "g", "G": unit = 1 << 30
        default: break
        }
        if unit != 1 { digits = digits.dropLast() }
        guard let n = UInt64(digits), n > 0 else { return nil }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: unit)
        return overflow ? nil : bytes
    }

    public var description: String {
        switch self {
        case .daily: "daily"
        case .hourly: "hourly"
        case .size(let bytes): "\(bytes) bytes"
        }
    }

    /// The period a receive time falls into: the UTC day (daily, size) or hour (hourly), as a
    /// number that changes exactly when the file name's date part does.
    ///
    /// - Complexity: O(1). - Allocations: none.
    func period(ofWallMs ms: Int64) -> Int64 {
        let unit: Int64 = self == .hourly ? 3_600_000 : 86_400_000
        return ms >= 0 ? ms / unit : (ms - unit + 1) / unit
    }

    /// The file name for `period` and continuation `index` (only size rotation numbers its files).
    ///
    /// - Allocations: the name.
    func fileName(period: Int64, index: Int) -> String {
        let unit: Int64 = self == .hourly ? 3_600_000 : 86_400_000
        let t = Timestamp(milliseconds: period * unit).civil
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        var name = "\(pad(t.year, 4))-\(pad(t.month, 2))-\(pad(t.day, 2))"
        if self == .hourly { name += "T\(pad(t.hour, 2))" }
        if case .size = self { name += "." + pad(index, 4) }
        return name + ".log.gz"
    }
}
