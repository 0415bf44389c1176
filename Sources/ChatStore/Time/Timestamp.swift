/// An instant in UTC, in whole milliseconds since the Unix epoch (1970-01-01T00:00:00.000Z).
///
/// A plain `Int64`: `Sendable`, 8 bytes, ordered like the instants it names. Conversion to and from
/// a calendar date uses proleptic Gregorian civil-from-days arithmetic (no libc, no time zones), so it
/// is exact for every day and costs a handful of integer operations.
///
/// The RFC 3339 text forms (``writeRFC3339(to:)``, ``init(rfc3339:)``) cover the years 0000…9999,
/// ``earliest`` … ``latest``; any `Int64` is a valid `Timestamp`, but values outside that range are
/// clamped to it when formatted, and the parsers never produce them.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00.000Z; negative before it.
    public var milliseconds: Int64

    @inlinable
    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The Unix epoch, 1970-01-01T00:00:00.000Z.
    public static let epoch = Timestamp(milliseconds: 0)
    /// 0000-01-01T00:00:00.000Z, the first instant RFC 3339 can write.
    public static let earliest = Timestamp(milliseconds: -62_167_219_200_000)
    /// 9999-12-31T23:59:59.999Z, the last instant RFC 3339 can write.
    public static let latest = Timestamp(milliseconds: 253_402_300_799_999)

    @usableFromInline static let millisecondsPerSecond: Int64 = 1000
    static let millisecondsPerDay: Int64 = 86_400_000

    @inlinable
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The instant `milliseconds` later (earlier when negative), saturating at the ends of `Int64`.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func advanced(byMilliseconds delta: Int64) -> Timestamp {
        let (sum, overflow) = milliseconds.addingReportingOverflow(delta)
        return Timestamp(milliseconds: overflow ? (delta > 0 ? .max : .min) : sum)
    }

    /// The RFC 3339 form, e.g. `2025-11-21T04:26:41.971Z`.
    public var description: String { rfc3339 }
}

// MARK: - Civil dates

/// A calendar date and time of day in UTC (proleptic Gregorian), as ``Timestamp`` converts it.
///
/// Fields are not validated by the initialiser; ``Timestamp/init(_:)`` checks them.
public struct CivilTime: Sendable, Hashable {
    /// The year; 0 is 1 BC in the proleptic Gregorian calendar.
    public var year: Int
    /// 1…12.
    public var month: Int
    /// 1…28/29/30/31.
    public var day: Int
    /// 0…23.
    public var hour: Int
    /// 0…59.
    public var minute: Int
    /// 0…59.
    public var second: Int
    /// 0…999.
    public var millisecond: Int

    public init(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// Whether `year` has a 29 February.
    @inlinable
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1…12) of `year`.
    ///
    /// - Precondition: `1 <= month <= 12`.
    public static func daysInMonth(_ month: Int, of year: Int) -> Int {
        precondition(month >= 1 && month <= 12, "month must be in 1...12")
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whether every field is in range (the second may not be 60 here; see ``Timestamp/init(rfc3339:)``).
    public var isValid: Bool {
        month >= 1 && month <= 12 && day >= 1 && day <= Self.daysInMonth(month, of: year)
            && hour >= 0 && hour < 24 && minute >= 0 && minute < 60 && second >= 0 && second < 60
            && millisecond >= 0 && millisecond < 1000
    }
}

extension Timestamp {
    /// The instant `civil` names, or `nil` when a field is out of range or the year needs more than
    /// 4 digits (see ``earliest``, ``latest``).
    ///
    /// - Complexity: O(1). - Allocations: none.
    public init?(_ civil: CivilTime) {
        guard civil.isValid, civil.year >= 0, civil.year <= 9999 else { return nil }
        let days = Self.days(year: civil.year, month: civil.month, day: civil.day)
        let seconds = Int64(civil.hour * 3600 + civil.minute * 60 + civil.second)
        self.init(
            milliseconds: days * Self.millisecondsPerDay + seconds * Self.millisecondsPerSecond
                + Int64(civil.millisecond))
    }

    /// The calendar date and time of day of this instant in UTC.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public var civil: CivilTime {
        let (days, msOfDay) = Self.floorDivision(milliseconds, Self.millisecondsPerDay)
        let date = Self.civilDate(days: days)
        let ms = Int(msOfDay)
        return CivilTime(
            year: date.year, month: date.month, day: date.day, hour: ms / 3_600_000, minute: ms / 60_000 % 60,
            second: ms / 1000 % 60, millisecond: ms % 1000)
    }

    /// Days since 1970-01-01 of the proleptic Gregorian date `year-month-day` (H. Hinnant's
    /// `days_from_civil`): eras of 400 years, years starting on 1 March so that the leap day is last.
    ///
    /// - Precondition (caller): `1 <= month <= 12`, `1 <= day <= 31`.
    /// - Complexity: O(1). - Allocations: none.
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(year) - (month <= 2 ? 1 : 0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400  // 0...399
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1  // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0...146096
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    ///
    /// - Precondition (caller): `|days|` well below `Int64.max / 4` (true for every `Int64` millisecond count).
    /// - Complexity: O(1). - Allocations: none.
    static func civilDate(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365
        let mp = (5 * dayOfYear + 2) / 153  // 0...11, March = 0
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// The whole second this instant falls in (rounded down, also before 1970) and its millisecond
    /// within that second, `0...999`.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inlinable
    package var secondAndMillisecond: (second: Int64, millisecond: Int64) {
        let (second, millisecond) = Self.floorDivision(milliseconds, Self.millisecondsPerSecond)
        return (second, millisecond)
    }

    /// Quotient rounded towards negative infinity and the matching non-negative remainder.
    @inlinable @inline(__always)
    static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let q = value / divisor
        let r = value % divisor
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
