public import IRCWire

/// Encodes a line as one JSON object with exactly the atoms of the ircdocs msg-split suite:
/// `"tags"` (unescaped values, key-only tags as `""`, omitted when the line has no tags),
/// `"source"` (without its colon, omitted when absent), `"verb"`, `"params"`.
public enum IRCAtomsEncoder: Sendable {
    /// - Complexity: O(line). - Allocations: none once the writer's buffer has grown.
    public static func encode(_ bytes: Span<UInt8>, _ message: TwitchMessage, into out: inout JSONWriter) {
        let line = message.line
        out.beginObject()
        if line.hasTags {
            out.key("tags")
            writeTags(bytes, message, into: &out)
        }
        if line.hasSource {
            out.key("source")
            out.string(bytes, line.sourceRange)
        }
        out.key("verb")
        out.string(bytes, line.verbRange)
        out.key("params")
        out.beginArray()
        var params = ParamCursor(line)
        while let p = params.next(in: bytes) { out.string(bytes, p) }
        out.endArray()
        out.endObject()
    }

    /// Writes the tags as an object, each key once with its last value (duplicates: last wins).
    ///
    /// When no documented key repeats (``TwitchTags/isRegular``) and at most one tag is undocumented
    /// (`msg-param-*` or unknown), every tag is its own last occurrence and none is looked up again:
    /// a documented key equals no other key after UTF-8 repair (it is ASCII). `checksEveryTag` turns
    /// that shortcut off (for the test that holds the two to the same output).
    ///
    /// - Complexity: O(tag bytes) with the shortcut; else O(1) more per documented key and O(later
    ///   keys) per undocumented one. - Allocations: none once the writer's buffer has grown.
    public static func writeTags(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, into out: inout JSONWriter, checksEveryTag: Bool = false
    ) {
        out.beginObject()
        let tags = message.tags
        let eachOnce = !checksEveryTag && tags.isRegular && tags.msgParamCount + tags.unknownCount <= 1
        var cursor = message.line.tags
        while let tag = cursor.next(in: bytes) {
            guard eachOnce || isLastOccurrence(tag, bytes, message) else { continue }
            out.key(bytes: bytes, tag.key)
            out.string(bytes, tag: tag.value)
        }
        out.endObject()
    }

    /// Whether no later tag has the same key as JSON writes it (the rule for every JSON object built
    /// from tags: each key once, the last value wins, as IRCv3 has it for a repeated tag). Keys are
    /// compared as written, after UTF-8 repair: `\xff` and `\xfe` both become U+FFFD, so they are
    /// one key. Known Twitch keys (ASCII, so equal after repair only to themselves) answer in O(1)
    /// from their slot; others scan the rest of the tags.
    ///
    /// - Complexity: O(1) for a known key, else O(length of the later tags' keys).
    /// - Allocations: none.
    static func isLastOccurrence(_ tag: Tag, _ bytes: Span<UInt8>, _ message: TwitchMessage) -> Bool {
        if let key = TwitchTagKey(bytes: bytes, tag.key) {
            return message.tags[key]?.raw == tag.value.raw
        }
        var later = message.line.tags
        // Skip to just after `tag`, then look for a key that writes the same.
        while let t = later.next(in: bytes), t.key != tag.key {}
        let key = bytes.extracting(tag.key.range)
        while let t = later.next(in: bytes) {
            if UTF8Repair.equalAfterRepair(bytes.extracting(t.key.range), key) { return false }
        }
        return true
    }
}
