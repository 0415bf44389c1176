extension Timestamp {
    /// Bytes written by ``writeRFC3339(to:)``: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static let rfc3339ByteCount = 24
    /// Bytes written by ``writeTimeOfDay(to:utcOffsetSeconds:)``: `HH:MM:SS`.
    public static let timeOfDayByteCount = 8

    /// Appends the RFC 3339 form with milliseconds in UTC, e.g. `2025-11-21T04:26:41.971Z`: always
    /// exactly ``rfc3339ByteCount`` ASCII bytes.
    ///
    /// Instants before ``earliest`` or after ``latest`` are written as those bounds (RFC 3339 has
    /// 4-digit years only).
    ///
    /// - Precondition: `output.freeCapacity >= 24`.
    /// - Complexity: O(1). - Allocations: none.
    public func writeRFC3339(to output: inout OutputSpan<UInt8>) {
        precondition(output.freeCapacity >= Self.rfc3339ByteCount, "RFC 3339 needs 24 bytes of free capacity")
        let t = min(max(self, .earliest), .latest).civil
        Self.append(t.year, digits: 4, to: &output)
        output.append(UInt8(ascii: "-"))
        Self.append(t.month, digits: 2, to: &output)
        output.append(UInt8(ascii: "-"))
        Self.append(t.day, digits: 2, to: &output)
        output.append(UInt8(ascii: "T"))
        Self.append(t.hour, digits: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        Self.append(t.minute, digits: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        Self.append(t.second, digits: 2, to: &output)
        output.append(UInt8(ascii: "."))
        Self.append(t.millisecond, digits: 3, to: &output)
        output.append(UInt8(ascii: "Z"))
    }

    /// Appends the time of day as `HH:MM:SS` (``timeOfDayByteCount`` bytes), for the text printer.
    ///
    /// - Parameter utcOffsetSeconds: added before formatting, e.g. the local zone's offset that the
    ///   caller looked up (this module has no clock or zone database). 0 prints UTC.
    /// - Precondition: `output.freeCapacity >= 8`; `|utcOffsetSeconds|` is at most one week.
    /// - Complexity: O(1). - Allocations: none.
    public func writeTimeOfDay(to output: inout OutputSpan<UInt8>, utcOffsetSeconds: Int = 0) {
        precondition(output.freeCapacity >= Self.timeOfDayByteCount, "HH:MM:SS needs 8 bytes of free capacity")
        precondition(abs(utcOffsetSeconds) <= 7 * 86_400, "utcOffsetSeconds is not a plausible UTC offset")
        let local = advanced(byMilliseconds: Int64(utcOffsetSeconds) * Self.millisecondsPerSecond)
        let seconds = Int(Self.floorDivision(local.milliseconds, Self.millisecondsPerDay).remainder / 1000)
        Self.append(seconds / 3600, digits: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        Self.append(seconds / 60 % 60, digits: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        Self.append(seconds % 60, digits: 2, to: &output)
    }

    /// The RFC 3339 form as a `String`, e.g. `2025-11-21T04:26:41.971Z`.
    ///
    /// - Allocations: the string (and a 24-byte scratch array).
    public var rfc3339: String {
        let bytes = [UInt8](capacity: Self.rfc3339ByteCount) { writeRFC3339(to: &$0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The time of day as a `String`, e.g. `04:26:41`. See ``writeTimeOfDay(to:utcOffsetSeconds:)``.
    ///
    /// - Allocations: the string (and an 8-byte scratch array).
    public func timeOfDay(utcOffsetSeconds: Int = 0) -> String {
        let bytes = [UInt8](capacity: Self.timeOfDayByteCount) {
            writeTimeOfDay(to: &$0, utcOffsetSeconds: utcOffsetSeconds)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` (non-negative) as exactly `digits` decimal digits, zero-padded.
    @inline(__always)
    private static func append(_ value: Int, digits: Int, to output: inout OutputSpan<UInt8>) {
        assert(value >= 0 && digits >= 1 && digits <= 4)
        var divisor = 1
        for _ in 1..<digits { divisor &*= 10 }
        var rest = value
        while divisor > 0 {
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
