/// One UTC month of an archive: the unit of a user's logs (`/channel/c/user/u/2025/11`).
///
/// Ordered by date; written without leading zeros (`2025/11`), as rustlog's `/list?user=` answers it
/// (`src/db/mod.rs`, `read_available_user_logs`).
public struct LogMonth: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int

    /// A valid month (years 1…9999), else `nil`.
    public init?(year: Int, month: Int) {
        guard year >= 1, year <= 9999, month >= 1, month <= 12 else { return nil }
        self.year = year
        self.month = month
    }

    /// `year/month` without leading zeros.
    public var description: String { "\(year)/\(month)" }

    public static func < (a: LogMonth, b: LogMonth) -> Bool { (a.year, a.month) < (b.year, b.month) }

    /// Whether `day` falls in this month.
    public func contains(_ day: LogDay) -> Bool { day.year == year && day.month == month }
}
