package import IRCWire

/// Writes a log line as serve sends it, into a buffer it reuses:
///
/// - capture's `time` tag is left out (Twitch never sends one);
/// - `tmi-sent-ts` and `rm-received-ts` are rebased, unless the recorded values are kept
///   (``ServeOptions/keepTime``): each becomes the moment the line is sent plus its recorded distance
///   from the line's own time (the time it is paced by), so lag and age read as they did when it was
///   recorded;
/// - in the passes of a looping log after the first, the message ids (`id`, `target-msg-id`,
///   `reply-parent-msg-id`, `reply-thread-parent-msg-id`, `source-id`) become ids derived from them
///   (see ``MessageIds/appendDerived(from:pass:into:)``).
///
/// Everything else is copied byte for byte, tags in their order. Rewriting changes the line's length,
/// which is why the line is written out rather than lent from the reader.
package struct ServedLineWriter {
    /// The line last written, without CR LF.
    package private(set) var bytes: [UInt8] = []
    /// Where ``bytes`` starts without its `@tags ` (0 when it has none), for clients that did not ask
    /// for tags.
    package private(set) var untaggedStart = 0

    package init() {
        bytes.reserveCapacity(2048)
    }

    /// Writes `line` (parsed as `message`) as it is to be sent.
    ///
    /// - Parameters:
    ///   - lineTime: the time the line is paced by (milliseconds since 1970), if known.
    ///   - sentAtMs: the wall-clock moment it is sent (milliseconds since 1970).
    ///   - pass: 1 for the log's first pass; 2, 3, … for the passes of `--loop` after it.
    /// - Complexity: O(line length). - Allocations: none once the buffer has grown to the longest line.
    package mutating func write(
        _ line: Span<UInt8>, message: TwitchMessage, lineTime: Int64?, sentAtMs: Int64, pass: Int, keepTime: Bool
    ) {
        bytes.removeAll(keepingCapacity: true)
        let parsed = message.line
        guard parsed.hasTags else {
            untaggedStart = 0
            append(line, 0..<line.count)
            return
        }
        var wrote = false
        var cursor = parsed.tags
        while let tag = cursor.next(in: line) {
            let key = TwitchTagKey(bytes: line, tag.key)
            if key == .time { continue }
            bytes.append(wrote ? UInt8(ascii: ";") : UInt8(ascii: "@"))
            wrote = true
            switch key {
            case .tmiSentTs?, .rmReceivedTs?:
                if !keepTime, let lineTime, let value = tag.value.integer(in: line) {
                    append(line, tag.key.range)
                    bytes.append(UInt8(ascii: "="))
                    appendDecimal(sentAtMs &+ (value &- lineTime))
                    continue
                }
            case .id?, .targetMsgId?, .replyParentMsgId?, .replyThreadParentMsgId?, .sourceId?:
                if pass > 1, !tag.value.raw.isEmpty {
                    append(line, tag.key.range)
                    bytes.append(UInt8(ascii: "="))
                    MessageIds.appendDerived(from: line.extracting(tag.value.raw.range), pass: pass, into: &bytes)
                    continue
                }
            default:
                break
            }
            // The tag as recorded: `key`, `key=` or `key=value`.
            append(line, Int(tag.key.lower)..<max(Int(tag.key.upper), Int(tag.value.raw.upper)))
        }
        if wrote { bytes.append(UInt8(ascii: " ")) }
        untaggedStart = bytes.count
        append(line, parsed.untaggedStart..<line.count)
    }

    /// Appends `line[range]` in one copy (not byte by byte: a served line is copied once per client pass).
    private mutating func append(_ line: Span<UInt8>, _ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= line.count, "range outside the line")
        // SAFETY: `range` lies within `line` (checked above).
        unsafe line.withUnsafeBufferPointer { buffer in
            unsafe bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }

    private mutating func appendDecimal(_ value: Int64) {
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64's 20 digits
        var count = 0
        // SAFETY: at most 20 digits are written into the 24 bytes of `digits`, and read back below.
        unsafe withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                unsafe raw[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            while count > 0 {
                count -= 1
                bytes.append(unsafe raw[count])
            }
        }
    }
}
