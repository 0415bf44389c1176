public import ChatStore

/// One UTC day of an archive, as capture names its files (`2025-11-21.log.gz`, `2025-11-21T04.log.gz`,
/// `2025-11-21.0000.log.gz`): the unit of a channel's logs.
///
/// Ordered by date. The API writes its parts without leading zeros (`2025`, `1`, `7`), as rustlog's
/// `/list` does (`src/db/mod.rs`, `read_available_channel_logs`: `year().to_string()`, …).
public struct LogDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// A valid calendar day (years 1…9999), else `nil`.
    public init?(year: Int, month: Int, day: Int) {
        guard year >= 1, year <= 9999, month >= 1, month <= 12, day >= 1,
            day <= Self.daysIn(month: month, year: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The month this day falls in.
    public var logMonth: LogMonth { LogMonth(year: year, month: month)! }

    /// The day's first instant (00:00 UTC).
    public var start: Timestamp { Timestamp(CivilTime(year: year, month: month, day: day))! }

    /// `year/month/day` without leading zeros: the tail of a redirect (`/channel/c/2025/11/1`).
    public var description: String { "\(year)/\(month)/\(day)" }

    public static func < (a: LogDay, b: LogDay) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Days in `month` of `year` (proleptic Gregorian).
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
