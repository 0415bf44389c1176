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
    /// The parse offsets of the line ``bytes`` was written from, for ``message``.
    private var sourceLine: ParsedLine? = nil

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
        if message.tags.isRegular {
            writeEdited(line, message: message, lineTime: lineTime, sentAtMs: sentAtMs, pass: pass, keepTime: keepTime)
        } else {
            writeByCursor(
                line, message: message, lineTime: lineTime, sentAtMs: sentAtMs, pass: pass, keepTime: keepTime)
        }
    }

    /// Calls `body` with the line last written (``bytes``) and, when `parsing`, its ``message`` (`nil`
    /// otherwise: it sorts the tags again, work a caller without a use for it skips), both borrowed
    /// from the writer. Reading them one by one from a writer held in a property or a
    /// global (`let line = writer.bytes`, `writer.message`) copies the buffer's reference, or the
    /// whole writer for the computed ``message``: a retain each, a line. `mutating` though it changes
    /// nothing: a non-mutating call on a writer in a class's property or a global copies the writer
    /// for the call (a retain too); a mutating one is handed it in place.
    ///
    /// - Complexity: O(tag bytes) besides `body`. - Allocations: none.
    @inline(__always)
    package mutating func withLine<R, E: Error>(
        parsing: Bool, _ body: (Span<UInt8>, TwitchMessage?) throws(E) -> R
    ) throws(E) -> R {
        try body(bytes.span, parsing ? message : nil)
    }

    /// The line last written (``bytes``) as Twitch chat, without parsing it again: past its tags the
    /// writer copies the line it was written from as it is, so that line's parse offsets only move (by
    /// the change in the tags' length); the tags, which it rewrote, are sorted again from ``bytes``.
    /// `nil` before the first write, and for a line past 65,535 bytes (which a parse rejects too).
    ///
    /// - Complexity: O(tag bytes). - Allocations: none.
    package var message: TwitchMessage? {
        guard let source = sourceLine, bytes.count <= Int(UInt16.max) else { return nil }
        let shift = untaggedStart - source.untaggedStart
        func moved(_ offset: UInt16) -> UInt16 { UInt16(Int(offset) + shift) }
        func moved(_ range: ByteRange) -> ByteRange { ByteRange(moved(range.lower), moved(range.upper)) }
        let line = ParsedLine(
            length: UInt16(bytes.count),
            // A written tag section is `@`, the tags and one space: it ends just before `untaggedStart`.
            tags: untaggedStart > 0 ? ByteRange(1, UInt16(untaggedStart - 1)) : nil,
            source: source.hasSource ? moved(source.sourceRange) : nil, verb: moved(source.verbRange),
            paramsStart: moved(source.paramsStart),
            trailingStart: source.hasTrailing ? moved(source.trailingStart) : .max, paramCount: source.paramCount)
        return TwitchMessage(line, in: bytes.span)
    }

    /// Empties the buffer; writes a line without tags as it is and answers `false` (nothing to edit).
    private mutating func startLine(_ line: Span<UInt8>, _ message: TwitchMessage) -> Bool {
        bytes.removeAll(keepingCapacity: true)
        sourceLine = message.line
        guard message.line.hasTags else {
            untaggedStart = 0
            append(line, 0..<line.count)
            return false
        }
        return true
    }

    /// The keys serve may rewrite or leave out (those ``change(_:_:in:lineTime:pass:keepTime:)`` acts on).
    private static let editedKeys: [TwitchTagKey] = [
        .time, .tmiSentTs, .rmReceivedTs, .id, .targetMsgId, .replyParentMsgId, .replyThreadParentMsgId, .sourceId,
    ]

    /// What serve does to a tag it changes.
    private enum Change {
        /// `time`: the recording's own, left out.
        case leaveOut
        /// `tmi-sent-ts`, `rm-received-ts`: the recorded milliseconds, rebased to the moment of sending.
        case rebase(recorded: Int64)
        /// A message id, on a `--loop` pass after the first: renewed, so that each pass has its own.
        case renewId
    }

    /// The one rule both writers follow: what happens to the tag `key` with `value`, or `nil` when
    /// it is sent as recorded.
    ///
    /// - Complexity: O(value length) for a time tag, O(1) otherwise. - Allocations: none.
    private static func change(
        _ key: TwitchTagKey?, _ value: TagValue, in line: Span<UInt8>, lineTime: Int64?, pass: Int, keepTime: Bool
    ) -> Change? {
        switch key {
        case .time?:
            return .leaveOut
        case .tmiSentTs?, .rmReceivedTs?:
            guard !keepTime, lineTime != nil, let ms = value.integer(in: line) else { return nil }
            return .rebase(recorded: ms)
        case .id?, .targetMsgId?, .replyParentMsgId?, .replyThreadParentMsgId?, .sourceId?:
            return pass > 1 && !value.raw.isEmpty ? .renewId : nil
        default:
            return nil
        }
    }

    /// Writes the new value of a tag that is ``Change/rebase(recorded:)`` or ``Change/renewId``.
    private mutating func appendChanged(
        _ change: Change, value: Range<Int>, of line: Span<UInt8>, lineTime: Int64?, sentAtMs: Int64, pass: Int
    ) {
        switch change {
        case .leaveOut: break
        case .rebase(let recorded): appendDecimal(sentAtMs &+ (recorded &- (lineTime ?? 0)))
        case .renewId: MessageIds.appendDerived(from: line.extracting(value), pass: pass, into: &bytes)
        }
    }

    /// One tag to change, placed: its element `start ..< end` (key to end of value) and where its
    /// value starts.
    private struct Edit {
        var start = 0
        var valueStart = 0
        var end = 0
        var change = Change.leaveOut
    }

    /// ``write(_:message:lineTime:sentAtMs:pass:keepTime:)`` for a regular tag section (see
    /// ``TwitchTags/isRegular``): the slots place the few tags to edit, and the bytes between them are
    /// copied in one piece each. The same output as the tag-by-tag walk, which a test holds it to.
    ///
    /// - Complexity: O(line length), with O(1) work per edited tag. - Allocations: none.
    private mutating func writeEdited(
        _ line: Span<UInt8>, message: TwitchMessage, lineTime: Int64?, sentAtMs: Int64, pass: Int, keepTime: Bool
    ) {
        guard startLine(line, message) else { return }
        let tags = message.tags
        var edits = InlineArray<8, Edit>(repeating: Edit())
        var count = 0
        for key in Self.editedKeys {
            guard let value = tags[key],
                let change = Self.change(key, value, in: line, lineTime: lineTime, pass: pass, keepTime: keepTime)
            else { continue }
            let valueStart = Int(value.raw.lower)
            // A key without `=` has an empty value where the key ends; with `=`, the value starts after it.
            let keyEnd = valueStart > 0 && line[valueStart - 1] == UInt8(ascii: "=") ? valueStart - 1 : valueStart
            let edit = Edit(
                start: keyEnd - key.name.utf8CodeUnitCount, valueStart: valueStart, end: Int(value.raw.upper),
                change: change)
            // Insertion into place by start: at most eight edits.
            var k = count
            while k > 0 && edits[k - 1].start > edit.start {
                edits[k] = edits[k - 1]
                k -= 1
            }
            edits[k] = edit
            count += 1
        }
        let lower = Int(message.line.tagsRange.lower)
        let upper = Int(message.line.tagsRange.upper)
        bytes.append(UInt8(ascii: "@"))
        var position = lower
        for k in 0..<count {
            let edit = edits[k]
            if case .leaveOut = edit.change {
                // Left out with one of its `;`: the one after it, or when it is last the one before.
                append(line, position..<edit.start)
                if edit.end < upper {
                    position = edit.end + 1
                } else {
                    if bytes.last == UInt8(ascii: ";") { bytes.removeLast() }
                    position = upper
                }
                continue
            }
            append(line, position..<edit.valueStart)
            appendChanged(
                edit.change, value: edit.valueStart..<edit.end, of: line, lineTime: lineTime, sentAtMs: sentAtMs,
                pass: pass)
            position = edit.end
        }
        append(line, position..<upper)
        if bytes.count == 1 {
            bytes.removeAll(keepingCapacity: true)  // only `time` was there
        } else {
            bytes.append(UInt8(ascii: " "))
        }
        untaggedStart = bytes.count
        append(line, message.line.untaggedStart..<line.count)
    }

    /// ``write(_:message:lineTime:sentAtMs:pass:keepTime:)`` tag by tag: any section, including empty
    /// elements (dropped) and repeated keys (each occurrence rewritten).
    ///
    /// - Complexity: O(line length), with a key lookup per tag. - Allocations: none.
    package mutating func writeByCursor(
        _ line: Span<UInt8>, message: TwitchMessage, lineTime: Int64?, sentAtMs: Int64, pass: Int, keepTime: Bool
    ) {
        guard startLine(line, message) else { return }
        let parsed = message.line
        var wrote = false
        var cursor = parsed.tags
        while let tag = cursor.next(in: line) {
            let change = Self.change(
                TwitchTagKey(bytes: line, tag.key), tag.value, in: line, lineTime: lineTime, pass: pass,
                keepTime: keepTime)
            if case .leaveOut? = change { continue }
            bytes.append(wrote ? UInt8(ascii: ";") : UInt8(ascii: "@"))
            wrote = true
            if let change {
                append(line, tag.key.range)
                bytes.append(UInt8(ascii: "="))
                appendChanged(
                    change, value: tag.value.raw.range, of: line, lineTime: lineTime, sentAtMs: sentAtMs, pass: pass)
            } else {
                // The tag as recorded: `key`, `key=` or `key=value`.
                append(line, Int(tag.key.lower)..<max(Int(tag.key.upper), Int(tag.value.raw.upper)))
            }
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
