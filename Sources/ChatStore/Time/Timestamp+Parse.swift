extension Timestamp {
    /// Parses an RFC 3339 date-time, as in the IRCv3 `time` tag:
    /// `YYYY-MM-DDTHH:MM:SS(.fraction)?(Z|±HH:MM)`.
    ///
    /// `T` and `Z` may be lower case (RFC 3339 §5.6). The fraction has one or more digits and is
    /// truncated to milliseconds. A leap second (`:60`) counts as the first second of the next minute,
    /// as POSIX time does. The offset is subtracted, so the result is the UTC instant.
    ///
    /// - Returns: `nil` unless all of `bytes` is one date-time with every field in range and the
    ///   instant within ``earliest`` … ``latest``.
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public init?(rfc3339 bytes: Span<UInt8>) {
        var reader = DigitReader()
        guard let date = reader.date(in: bytes), reader.skip(UInt8(ascii: "T"), orLower: true, in: bytes),
            let ms = reader.timeAndZone(in: bytes), reader.isAtEnd(bytes)
        else { return nil }
        self.init(days: date, millisecondsOfDay: ms)
    }

    /// Parses a `tmi-sent-ts` value: decimal milliseconds since the epoch, digits only.
    ///
    /// Eight digits a step from 8 digits on (a `tmi-sent-ts` has 13): the first eight as one word, the
    /// rest as the value's last eight bytes with the ones already read turned into leading zeros
    /// (``eightDigits(_:)``); shorter values a digit at a time.
    ///
    /// - Returns: `nil` for an empty value, any byte that is not a digit, or an instant after ``latest``.
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public init?(decimalMilliseconds bytes: Span<UInt8>) {
        let n = bytes.count
        guard n > 0, n <= 15 else { return nil }  // `latest` has 15 digits
        var value: Int64 = 0
        if n >= 8 {
            // SAFETY: both 8-byte loads lie in the span's `n >= 8` bytes.
            let words = unsafe bytes.withUnsafeBytes { raw in
                unsafe (
                    raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
                )
            }
            guard let high = Self.eightDigits(words.0) else { return nil }
            value = Int64(high)
            if n > 8 {
                // The last 8 bytes, their first `16 - n` (read above) made "0": little-endian, byte k is
                // bits 8k ..< 8k + 8, and the first byte is the most significant digit.
                let known = UInt64(truncatingIfNeeded: 16 &- n) &* 8
                let zeros: UInt64 = 0x3030_3030_3030_3030 & ((1 &<< known) &- 1)
                guard let low = Self.eightDigits(words.1 & ~((1 &<< known) &- 1) | zeros) else { return nil }
                value = value &* Self.powerOfTen(n &- 8) &+ Int64(low)
            }
        } else {
            for i in bytes.indices {
                let d = bytes[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value &* 10 &+ Int64(d)
            }
        }
        guard value <= Self.latest.milliseconds else { return nil }
        self.init(milliseconds: value)
    }

    /// The number the 8 ASCII digits of `word` spell (its first byte, the lowest, most significant),
    /// or `nil` when a byte is not a digit: a check of every byte at once, then three multiplications
    /// that join digits in pairs, pairs in fours, fours in eights.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> UInt64? {
        // A byte is a digit when its high nibble is 3 and adding 6 to it does not carry into that nibble.
        let highs: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        guard (word & highs) | (((word &+ 0x0606_0606_0606_0606) & highs) &>> 4) == 0x3333_3333_3333_3333 else {
            return nil
        }
        var v = word & 0x0F0F_0F0F_0F0F_0F0F
        v = (v &* (10 << 8 + 1)) &>> 8  // pairs: 10 × first + second, in every other byte
        v = ((v & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) &>> 16  // fours, in every other 16 bits
        return ((v & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) &>> 32
    }

    /// 10 to the `exponent` (1 … 7): the scale of the high eight digits over the digits after them.
    @inline(__always)
    static func powerOfTen(_ exponent: Int) -> Int64 {
        switch exponent {
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        default: 10_000_000
        }
    }

    /// Parses RFC 3339 text; see ``init(rfc3339:)-(Span<UInt8>)``.
    ///
    /// - Allocations: none for a native string; one copy otherwise.
    public init?(rfc3339 text: String) {
        var text = text
        text.makeContiguousUTF8()
        self.init(rfc3339: text.utf8.span)
    }

    /// Parses a command-line time bound (`--since`, `--until`) into the interval it names.
    ///
    /// Accepts an RFC 3339 date-time (a space may stand for the `T`), which names one millisecond
    /// `t ..< t + 1 ms`, or a plain date `YYYY-MM-DD`, which names that whole UTC day. `--since` takes
    /// the `lowerBound` and `--until` the (exclusive) `upperBound`, so `--until 2025-11-21` includes the
    /// whole of that day. Leading and trailing spaces are ignored.
    ///
    /// - Returns: `nil` when `text` is neither form or names an instant outside ``earliest`` … ``latest``.
    /// - Complexity: O(`text.utf8.count`). - Allocations: none for a native string.
    public static func interval(parsingArgument text: String) -> Range<Timestamp>? {
        var text = text
        text.makeContiguousUTF8()
        let all = text.utf8.span
        var lower = 0
        var upper = all.count
        while lower < upper && all[lower] == UInt8(ascii: " ") { lower += 1 }
        while upper > lower && all[upper - 1] == UInt8(ascii: " ") { upper -= 1 }
        let bytes = all.extracting(lower..<upper)

        var reader = DigitReader()
        guard let days = reader.date(in: bytes) else { return nil }
        if reader.isAtEnd(bytes) {
            let start = Timestamp(days: days, millisecondsOfDay: 0)
            return start.map { $0..<Timestamp(milliseconds: $0.milliseconds + millisecondsPerDay) }
        }
        guard
            reader.skip(UInt8(ascii: "T"), orLower: true, in: bytes)
                || reader.skip(UInt8(ascii: " "), orLower: false, in: bytes),
            let ms = reader.timeAndZone(in: bytes), reader.isAtEnd(bytes),
            let instant = Timestamp(days: days, millisecondsOfDay: ms)
        else { return nil }
        return instant..<Timestamp(milliseconds: instant.milliseconds + 1)
    }

    /// `days` after the epoch plus `millisecondsOfDay` (which may be negative or exceed a day once an
    /// offset is applied), or `nil` outside ``earliest`` … ``latest``.
    private init?(days: Int64, millisecondsOfDay: Int64) {
        let ms = days * Self.millisecondsPerDay + millisecondsOfDay
        guard ms >= Self.earliest.milliseconds && ms <= Self.latest.milliseconds else { return nil }
        self.init(milliseconds: ms)
    }
}

/// A forward cursor over ASCII date-time text. It holds only a position (a value holding a `Span` would
/// need the experimental `Lifetimes` feature), so every method takes the bytes; every read is
/// bounds-checked by `Span`.
private struct DigitReader {
    var position = 0

    func isAtEnd(_ bytes: Span<UInt8>) -> Bool { position == bytes.count }

    /// Consumes `byte` (or its lower-case form when `orLower`) if it is next.
    mutating func skip(_ byte: UInt8, orLower: Bool, in bytes: Span<UInt8>) -> Bool {
        guard position < bytes.count else { return false }
        let b = bytes[position]
        guard b == byte || (orLower && b == byte | 0x20) else { return false }
        position += 1
        return true
    }

    /// Consumes exactly `count` decimal digits and returns their value.
    mutating func number(digits count: Int, in bytes: Span<UInt8>) -> Int? {
        guard bytes.count - position >= count else { return nil }
        var value = 0
        for i in position..<(position + count) {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            value = value * 10 + Int(d)
        }
        position += count
        return value
    }

    /// `YYYY-MM-DD` as days since the epoch, validated (month range, day within month).
    mutating func date(in bytes: Span<UInt8>) -> Int64? {
        guard let year = number(digits: 4, in: bytes), skip(UInt8(ascii: "-"), orLower: false, in: bytes),
            let month = number(digits: 2, in: bytes), skip(UInt8(ascii: "-"), orLower: false, in: bytes),
            let day = number(digits: 2, in: bytes),
            month >= 1, month <= 12, day >= 1, day <= CivilTime.daysInMonth(month, of: year)
        else { return nil }
        return Timestamp.days(year: year, month: month, day: day)
    }

    /// `HH:MM:SS(.fraction)?(Z|±HH:MM)` as UTC milliseconds relative to the start of the local day
    /// (negative or past one day once the offset is applied).
    mutating func timeAndZone(in bytes: Span<UInt8>) -> Int64? {
        guard let hour = number(digits: 2, in: bytes), skip(UInt8(ascii: ":"), orLower: false, in: bytes),
            let minute = number(digits: 2, in: bytes), skip(UInt8(ascii: ":"), orLower: false, in: bytes),
            let second = number(digits: 2, in: bytes),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var millisecond = 0
        if skip(UInt8(ascii: "."), orLower: false, in: bytes) {
            var digits = 0
            while position < bytes.count {
                let d = bytes[position] &- UInt8(ascii: "0")
                guard d < 10 else { break }
                if digits < 3 { millisecond = millisecond * 10 + Int(d) }
                digits += 1
                position += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { millisecond *= 10 }
        }
        var offsetMinutes = 0
        if !skip(UInt8(ascii: "Z"), orLower: true, in: bytes) {
            guard position < bytes.count else { return nil }
            let sign = bytes[position]
            guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
            position += 1
            guard let h = number(digits: 2, in: bytes), skip(UInt8(ascii: ":"), orLower: false, in: bytes),
                let m = number(digits: 2, in: bytes), h < 24, m < 60
            else { return nil }
            offsetMinutes = (h * 60 + m) * (sign == UInt8(ascii: "-") ? -1 : 1)
        }
        let seconds = hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return Int64(seconds) * 1000 + Int64(millisecond)
    }
}
