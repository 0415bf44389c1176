import ChatStore
import IRCWire
import Testing

@Suite struct TimestampTests {
    static func parse(_ text: String) -> Timestamp? {
        let bytes = Array(text.utf8)
        return Timestamp(rfc3339: bytes.span)
    }

    static func ms(_ text: String) -> Int64? { parse(text)?.milliseconds }

    /// Days since 1970-01-01 by counting whole years and months: slow, obviously right, independent
    /// of the civil-from-days arithmetic under test.
    static func naiveDays(year: Int, month: Int, day: Int) -> Int64 {
        var days: Int64 = 0
        if year >= 1970 {
            for y in 1970..<year { days += CivilTime.isLeapYear(y) ? 366 : 365 }
        } else {
            for y in year..<1970 { days -= CivilTime.isLeapYear(y) ? 366 : 365 }
        }
        for m in 1..<month { days += Int64(CivilTime.daysInMonth(m, of: year)) }
        return days + Int64(day - 1)
    }

    @Test("a Timestamp is 8 bytes")
    func layout() {
        #expect(MemoryLayout<Timestamp>.size == 8)
    }

    @Test(
        "formats known instants as RFC 3339 with milliseconds",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1_763_699_201_971, "2025-11-21T04:26:41.971Z"),
            (2_147_483_648_000, "2038-01-19T03:14:08.000Z"),
            (951_825_600_000, "2000-02-29T12:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ])
    func knownInstants(milliseconds: Int64, text: String) {
        let t = Timestamp(milliseconds: milliseconds)
        #expect(t.rfc3339 == text)
        #expect(Self.ms(text) == milliseconds)
    }

    @Test("writes exactly 24 bytes into a caller's buffer")
    func writesIntoOutputSpan() {
        let bytes = [UInt8](capacity: 30) { out in
            out.append(UInt8(ascii: "["))
            Timestamp(milliseconds: 1_763_699_201_971).writeRFC3339(to: &out)
            out.append(UInt8(ascii: "]"))
        }
        #expect(String(decoding: bytes, as: UTF8.self) == "[2025-11-21T04:26:41.971Z]")
    }

    @Test("instants outside 0000…9999 are clamped when formatted")
    func clamps() {
        #expect(Timestamp(milliseconds: .min).rfc3339 == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp(milliseconds: .max).rfc3339 == "9999-12-31T23:59:59.999Z")
    }

    @Test("civil dates agree with day counting for every 7th day of 1600…2500 and round-trip through text")
    func civilRoundTrips() throws {
        var checked = 0
        for year in stride(from: 1600, through: 2500, by: 1) {
            for month in 1...12 {
                for day in stride(from: 1 + (year + month) % 7, through: CivilTime.daysInMonth(month, of: year), by: 7)
                {
                    let civil = CivilTime(
                        year: year, month: month, day: day, hour: (year * 7 + day) % 24, minute: (month * 13) % 60,
                        second: (day * 11) % 60, millisecond: (year * month * day) % 1000)
                    let t = try #require(Timestamp(civil))
                    let seconds = Int64(civil.hour * 3600 + civil.minute * 60 + civil.second)
                    #expect(
                        t.milliseconds
                            == Self.naiveDays(year: year, month: month, day: day) * 86_400_000 + seconds * 1000
                            + Int64(civil.millisecond))
                    #expect(t.civil == civil)
                    #expect(Self.parse(t.rfc3339) == t)
                    checked += 1
                }
            }
        }
        #expect(checked > 40_000)
    }

    @Test("years 0, 1, 9999 and both sides of the epoch round-trip")
    func extremes() throws {
        for year in [0, 1, 4, 99, 100, 400, 1969, 1970, 1971, 2037, 2038, 2039, 2106, 9998, 9999] {
            for (month, day) in [(1, 1), (2, 28), (3, 1), (12, 31)] {
                let civil = CivilTime(
                    year: year, month: month, day: day, hour: 23, minute: 59, second: 59, millisecond: 999)
                let t = try #require(Timestamp(civil))
                #expect(t.civil == civil)
                #expect(Self.parse(t.rfc3339) == t)
                #expect(
                    t.milliseconds == (Self.naiveDays(year: year, month: month, day: day) + 1) * 86_400_000 - 1)
            }
        }
    }

    @Test(
        "29 February exists only in leap years",
        arguments: [(2000, true), (2024, true), (1600, true), (0, true), (1900, false), (2100, false), (2023, false)])
    func leapDays(year: Int, leap: Bool) {
        #expect(CivilTime.isLeapYear(year) == leap)
        let text = "\(String(repeating: "0", count: 4 - String(year).count))\(year)-02-29T12:00:00Z"
        #expect((Self.parse(text) != nil) == leap, "\(text)")
        #expect((Timestamp(CivilTime(year: year, month: 2, day: 29)) != nil) == leap)
    }

    @Test(
        "fractions of 1 to 9 digits are truncated to milliseconds",
        arguments: [
            ("", 0), (".9", 900), (".97", 970), (".971", 971), (".9719", 971), (".97199", 971), (".971999", 971),
            (".0000001", 0), (".12345678", 123), (".123456789", 123), (".999999999", 999),
        ])
    func fractions(fraction: String, milliseconds: Int64) {
        #expect(Self.ms("2025-11-21T04:26:41\(fraction)Z") == 1_763_699_201_000 + milliseconds)
    }

    @Test(
        "offsets are subtracted to give UTC",
        arguments: [
            ("2025-11-21T04:26:41.971Z", "2025-11-21T04:26:41.971Z"),
            ("2025-11-21T05:26:41.971+01:00", "2025-11-21T04:26:41.971Z"),
            ("2025-11-20T22:56:41.971-05:30", "2025-11-21T04:26:41.971Z"),
            ("2025-11-21T04:26:41.971+00:00", "2025-11-21T04:26:41.971Z"),
            ("2025-11-21T04:26:41.971-00:00", "2025-11-21T04:26:41.971Z"),
            ("2025-01-01T00:30:00+01:00", "2024-12-31T23:30:00.000Z"),
            ("2024-02-28T23:30:00-01:00", "2024-02-29T00:30:00.000Z"),
            ("1970-01-01T00:00:00+23:59", "1969-12-31T00:01:00.000Z"),
            ("2025-11-21t04:26:41.971z", "2025-11-21T04:26:41.971Z"),
        ])
    func offsets(text: String, utc: String) throws {
        let t = try #require(Self.parse(text))
        #expect(t.rfc3339 == utc)
    }

    @Test("a leap second counts as the first second of the next minute")
    func leapSecond() {
        #expect(Self.parse("2016-12-31T23:59:60Z")?.rfc3339 == "2017-01-01T00:00:00.000Z")
        #expect(Self.parse("2016-12-31T23:59:60.5Z")?.rfc3339 == "2017-01-01T00:00:00.500Z")
    }

    @Test(
        "invalid date-times are rejected",
        arguments: [
            "", "Z", "2025-11-21", "2025-11-21T04:26Z", "2025-11-21T04:26:41", "2025-11-21T04:26:41.Z",
            "2025-11-21T04:26:41.971", "2025-11-21T04:26:41+0100", "2025-11-21T04:26:41+01", "2025-11-21T04:26:41+01:0",
            "2025-11-21T04:26:41+24:00", "2025-11-21T04:26:41+01:60", "2025-11-21T04:26:41Z ", " 2025-11-21T04:26:41Z",
            "2025-11-21X04:26:41Z", "2025-11-21 04:26:41Z", "2025/11/21T04:26:41Z", "+2025-11-21T04:26:41Z",
            "20251-11-21T04:26:41Z", "2025-1-21T04:26:41Z", "2025-00-21T04:26:41Z", "2025-13-21T04:26:41Z",
            "2025-11-00T04:26:41Z", "2025-11-31T04:26:41Z", "2025-04-31T04:26:41Z", "2025-11-21T24:00:00Z",
            "2025-11-21T04:60:00Z", "2025-11-21T04:26:61Z", "2025-11-21T-4:26:41Z", "2o25-11-21T04:26:41Z",
            "2025-11-21T04:26:41.97a1Z", "2025-11-21T04:26:41.971ZZ", "2025-11-21T04:26:41.971Z\r",
            "0000-01-01T00:30:00+01:00", "9999-12-31T23:30:00-01:00",
        ])
    func invalid(text: String) {
        #expect(Self.parse(text) == nil, "\(text)")
    }

    @Test(
        "tmi-sent-ts is decimal milliseconds, digits only",
        arguments: [
            ("1763699201971", Int64?(1_763_699_201_971)), ("0", 0), ("253402300799999", 253_402_300_799_999),
            ("253402300800000", nil), ("9999999999999999", nil), ("", nil), ("-1", nil), ("+1", nil),
            ("17636992019x1", nil), (" 1", nil), ("1.5", nil),
        ])
    func tmiSentTs(text: String, milliseconds: Int64?) {
        let bytes = Array(text.utf8)
        #expect(Timestamp(decimalMilliseconds: bytes.span)?.milliseconds == milliseconds)
    }

    /// The plain reading of a `tmi-sent-ts`: digits only, at most 15, no later than `latest`.
    static func decimalReference(_ bytes: [UInt8]) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 15, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let value = bytes.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        return value <= Timestamp.latest.milliseconds ? value : nil
    }

    @Test(
        "tmi-sent-ts of every length from 1 to 16 digits, with every byte value at every place, against a plain reading"
    )
    func tmiSentTsEverywhere() {
        var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
        for length in 1...16 {
            for _ in 0..<4 {
                var digits = (0..<length).map { _ -> UInt8 in
                    rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return 0x30 + UInt8(rng >> 60 % 10)
                }
                #expect(Timestamp(decimalMilliseconds: digits.span)?.milliseconds == Self.decimalReference(digits))
                for place in 0..<length {
                    let kept = digits[place]
                    for value in UInt8.min...UInt8.max {
                        digits[place] = value
                        let parsed = Timestamp(decimalMilliseconds: digits.span)?.milliseconds
                        #expect(parsed == Self.decimalReference(digits), "\(digits) at \(place)")
                    }
                    digits[place] = kept
                }
            }
        }
        // The largest and the first too large, and leading zeros.
        for text in ["253402300799999", "253402300800000", "000000000000001", "100000000", "99999999", "00000000"] {
            let bytes = Array(text.utf8)
            #expect(Timestamp(decimalMilliseconds: bytes.span)?.milliseconds == Self.decimalReference(bytes), "\(text)")
        }
    }

    @Test("time of day as HH:MM:SS, in UTC or shifted by an offset")
    func timeOfDay() {
        let t = Timestamp(milliseconds: 1_763_699_201_971)
        #expect(t.timeOfDay() == "04:26:41")
        #expect(t.timeOfDay(utcOffsetSeconds: 3600) == "05:26:41")
        #expect(t.timeOfDay(utcOffsetSeconds: -5 * 3600) == "23:26:41")
        #expect(Timestamp(milliseconds: -1).timeOfDay() == "23:59:59")
        #expect(Timestamp.epoch.timeOfDay() == "00:00:00")
        let bytes = [UInt8](capacity: 8) { Timestamp(milliseconds: 86_399_999).writeTimeOfDay(to: &$0) }
        #expect(bytes == Array("23:59:59".utf8))
    }

    @Test("command-line bounds: a date names its whole day, a date-time one millisecond")
    func arguments() throws {
        let day = try #require(Timestamp.interval(parsingArgument: "2025-11-21"))
        #expect(day.lowerBound.rfc3339 == "2025-11-21T00:00:00.000Z")
        #expect(day.upperBound.rfc3339 == "2025-11-22T00:00:00.000Z")
        let instant = try #require(Timestamp.interval(parsingArgument: "2025-11-21T04:26:41.971Z"))
        #expect(instant.lowerBound.milliseconds == 1_763_699_201_971)
        #expect(instant.upperBound.milliseconds == 1_763_699_201_972)
        #expect(
            Timestamp.interval(parsingArgument: "2025-11-21 05:26:41+01:00")?.lowerBound.rfc3339
                == "2025-11-21T04:26:41.000Z")
        #expect(Timestamp.interval(parsingArgument: "  2024-02-29  ")?.lowerBound.rfc3339 == "2024-02-29T00:00:00.000Z")
        for bad in [
            "", "yesterday", "2025-11", "2023-02-29", "2025-11-21T", "2025-11-21T04:26:41", "2025-11-21Z", "21.11.2025",
        ] {
            #expect(Timestamp.interval(parsingArgument: bad) == nil, "\(bad)")
        }
        #expect(Timestamp(rfc3339: "2025-11-21T04:26:41.971Z")?.milliseconds == 1_763_699_201_971)
    }

    @Test("a line's time: the time tag first, then tmi-sent-ts; unreadable tags are flagged")
    func lineTime() throws {
        func time(_ line: String) throws -> LineTime {
            let bytes = Array(line.utf8)
            return LineTime(of: try TwitchMessage.parse(bytes.span), in: bytes.span)
        }
        let both = try time("@time=2025-11-21T04:26:41.971Z;tmi-sent-ts=1 :a!a@a PRIVMSG #c :hi")
        #expect(
            both
                == LineTime(
                    timestamp: Timestamp(milliseconds: 1_763_699_201_971), origin: .timeTag, hasUnreadableTag: false))
        let sent = try time("@tmi-sent-ts=1763699201971 :a!a@a PRIVMSG #c :hi")
        #expect(
            sent
                == LineTime(
                    timestamp: Timestamp(milliseconds: 1_763_699_201_971), origin: .tmiSentTs, hasUnreadableTag: false))
        let badTime = try time("@time=yesterday;tmi-sent-ts=5 :a!a@a PRIVMSG #c :hi")
        #expect(badTime == LineTime(timestamp: Timestamp(milliseconds: 5), origin: .tmiSentTs, hasUnreadableTag: true))
        let escaped = try time("@time=2025-11-21T04:26:41\\s971Z :a!a@a PRIVMSG #c :hi")
        #expect(escaped == LineTime(timestamp: nil, origin: .none, hasUnreadableTag: true))
        let none = try time(":tmi.twitch.tv PING :x")
        #expect(none == LineTime(timestamp: nil, origin: .none, hasUnreadableTag: false))
    }
}
