public import ChatStore
public import IRCWire

/// Writes a kept line as a recent-messages service hands it out (the v2 API of robotty's
/// recent-messages2, which Chatterino asks on every join):
///
/// ```
///  kept:      @badges=;id=a1;tmi-sent-ts=1 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi
///  exported:  @rm-deleted=1;rm-received-ts=1700000000123;historical=1;badges=;id=a1;tmi-sent-ts=1 :u!u@u… PRIVMSG #c :hi
/// ```
///
/// - `rm-deleted=1` first, only on a line a later CLEARMSG or CLEARCHAT hit; then
///   `rm-received-ts=<ms>` (when the service got the line) and `historical=1`;
/// - then the line's own tags in their order, without any `rm-deleted`, `rm-received-ts` or
///   `historical` it already had (the service's values replace them), and without empty elements;
/// - a line without tags gets a tag section of its own.
///
/// With `clearchatToNotice`, a CLEARCHAT becomes the NOTICE the service makes of it (its own tags
/// are dropped; `msg-id` says which kind):
///
/// ```
///  @rm-received-ts=…;historical=1;msg-id=rm-timeout :tmi.twitch.tv NOTICE #c :someone has been timed out for 10m 20s.
///  @rm-received-ts=…;historical=1;msg-id=rm-permaban :tmi.twitch.tv NOTICE #c :someone has been permanently banned.
///  @rm-received-ts=…;historical=1;msg-id=rm-clearchat :tmi.twitch.tv NOTICE #c :Chat has been cleared by a moderator.
/// ```
/// Durations are written as the service writes them (humantime: `1day 2h 3m 4s`, `0s`).
public enum HistoricalLine: Sendable {
    /// Writes `line` (parsed as `message`) as exported into `out`, which is emptied first.
    ///
    /// - Parameters:
    ///   - receivedAt: when the line was received (`rm-received-ts`, in milliseconds since 1970).
    ///   - deleted: a later CLEARMSG or CLEARCHAT hit it (`rm-deleted=1`).
    ///   - clearchatToNotice: write a CLEARCHAT as the NOTICE the service makes of it.
    /// - Complexity: O(`line.count`). - Allocations: none once `out` has grown to the longest line.
    public static func write(
        _ line: Span<UInt8>, message: TwitchMessage, receivedAt: Timestamp, deleted: Bool, clearchatToNotice: Bool,
        into out: inout [UInt8]
    ) {
        out.removeAll(keepingCapacity: true)
        out.append(UInt8(ascii: "@"))
        if deleted { append("rm-deleted=1;", to: &out) }
        append("rm-received-ts=", to: &out)
        appendDecimal(receivedAt.milliseconds, to: &out)
        append(";historical=1", to: &out)
        if clearchatToNotice, let clear = message.clearChat(in: line) {
            writeNotice(clear, line, into: &out)
            return
        }
        var cursor = message.line.tags
        while let tag = cursor.next(in: line) {
            if isServiceTag(line.extracting(tag.key.range)) { continue }
            let end = max(Int(tag.key.upper), Int(tag.value.raw.upper))
            guard end > Int(tag.key.lower) else { continue }  // an empty element
            out.append(UInt8(ascii: ";"))
            append(line, Int(tag.key.lower)..<end, to: &out)
        }
        out.append(UInt8(ascii: " "))
        append(line, bodyStart(of: message.line)..<line.count, to: &out)
    }

    /// Whether `key` is one of the tags the service sets itself.
    private static func isServiceTag(_ key: Span<UInt8>) -> Bool {
        key.equals("historical") || key.equals("rm-received-ts") || key.equals("rm-deleted")
    }

    /// Where `line` starts without its `@tags ` prefix (0 when it has none).
    private static func bodyStart(of line: ParsedLine) -> Int {
        guard line.hasTags else { return 0 }
        return line.hasSource ? Int(line.sourceRange.lower) - 1 : Int(line.verbRange.lower)
    }

    /// `;msg-id=… :tmi.twitch.tv NOTICE #channel :text`, after the service's tags.
    private static func writeNotice(_ clear: ClearChat, _ line: Span<UInt8>, into out: inout [UInt8]) {
        switch clear.action {
        case .clearAll:
            append(";msg-id=rm-clearchat :tmi.twitch.tv NOTICE #", to: &out)
            append(line, clear.channel.range, to: &out)
            append(" :Chat has been cleared by a moderator.", to: &out)
        case .ban(let login):
            append(";msg-id=rm-permaban :tmi.twitch.tv NOTICE #", to: &out)
            append(line, clear.channel.range, to: &out)
            append(" :", to: &out)
            append(line, login.range, to: &out)
            append(" has been permanently banned.", to: &out)
        case .timeout(let login, let seconds):
            append(";msg-id=rm-timeout :tmi.twitch.tv NOTICE #", to: &out)
            append(line, clear.channel.range, to: &out)
            append(" :", to: &out)
            append(line, login.range, to: &out)
            append(" has been timed out for ", to: &out)
            appendDuration(seconds, to: &out)
            out.append(UInt8(ascii: "."))
        }
    }

    /// Whole seconds as humantime writes a duration: years of 365.25 days, months of 30.44 days,
    /// then days, hours, minutes and seconds; zero units left out, `0s` for none; `1day`, `2days`.
    ///
    /// - Complexity: O(1). - Allocations: none once `out` has room.
    static func appendDuration(_ seconds: Int64, to out: inout [UInt8]) {
        let total = max(0, seconds)
        if total == 0 {
            append("0s", to: &out)
            return
        }
        let years = total / 31_557_600
        let monthsPart = total % 31_557_600
        let months = monthsPart / 2_630_016
        let daysPart = monthsPart % 2_630_016
        let days = daysPart / 86_400
        let daySeconds = daysPart % 86_400
        var started = false
        func unit(_ value: Int64, _ name: StaticString, plural: Bool) {
            guard value > 0 else { return }
            if started { out.append(UInt8(ascii: " ")) }
            started = true
            appendDecimal(value, to: &out)
            append(name, to: &out)
            if plural && value > 1 { out.append(UInt8(ascii: "s")) }
        }
        unit(years, "year", plural: true)
        unit(months, "month", plural: true)
        unit(days, "day", plural: true)
        unit(daySeconds / 3_600, "h", plural: false)
        unit(daySeconds % 3_600 / 60, "m", plural: false)
        unit(daySeconds % 60, "s", plural: false)
    }

    private static func append(_ literal: StaticString, to out: inout [UInt8]) {
        // SAFETY: `utf8Start` points at `utf8CodeUnitCount` initialised bytes of the literal.
        unsafe out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `line[range]` in one copy.
    private static func append(_ line: Span<UInt8>, _ range: Range<Int>, to out: inout [UInt8]) {
        precondition(range.lowerBound >= 0 && range.upperBound <= line.count, "range outside the line")
        // SAFETY: `range` lies within `line` (checked above); the buffer is used only inside the closure.
        unsafe line.withUnsafeBufferPointer { buffer in
            unsafe out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }

    private static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }
}
