public import ChatStore
public import IRCWire

/// What recognises one chat line in two copies of it: the live line chatcap received and the copy a
/// recent-messages service hands back (which carries tags of its own: `historical`, `rm-received-ts`,
/// `rm-deleted`, and in a capture our `time`).
///
/// A line with an `id` tag is recognised by its id alone. A line without one (JOIN, PART, ROOMSTATE,
/// CLEARCHAT, NOTICE, …) by the FNV-1a hash of the whole line without those receive-time tags: the
/// other tags in order, the source, the verb and the parameters. Both kinds live in one 64-bit
/// space (an id is hashed with a different basis), so a set of fingerprints holds either.
public enum LineFingerprint: Sendable {
    /// The FNV basis for ids: a different start than the line hash, so an id never collides with the
    /// hash of a line whose bytes happen to equal it.
    static let idBasis: UInt64 = 0x6C62_272E_07BB_0142

    /// Whether `message` has a non-empty `id` tag: its fingerprint is then its id's, which no other
    /// line shares (an id-less line's can repeat: the same JOIN, PART or ROOMSTATE).
    ///
    /// - Complexity: O(1). - Allocations: none.
    public static func hasId(_ message: TwitchMessage) -> Bool {
        message.tags[.id].map { !$0.raw.isEmpty } ?? false
    }

    /// The fingerprint of `bytes` (one line without CR LF, parsed as `message`).
    ///
    /// - Complexity: O(id length) for a line with an id, else O(line length). - Allocations: none.
    public static func of(_ bytes: Span<UInt8>, _ message: TwitchMessage) -> UInt64 {
        let line = message.line
        if let id = message.tags[.id], !id.raw.isEmpty {
            var hash = FNV1a64(basis: idBasis)
            hash.add(bytes, id.raw.range)
            return hash.value
        }
        return contentHash(line, in: bytes)
    }

    /// The hash of the whole line without its receive-time tags: the other tags in order (each
    /// `key=value;`), then everything after the tag section (source, verb, parameters). What
    /// recognises an id-less line in two hosts' copies (`replay --dedupe`) and in a service's.
    ///
    /// - Complexity: O(line length). - Allocations: none.
    public static func contentHash(_ line: ParsedLine, in bytes: Span<UInt8>) -> UInt64 {
        var hash = FNV1a64()
        var cursor = line.tags
        while let tag = cursor.next(in: bytes) {
            if isReceiveTimeTag(tag.key, in: bytes) { continue }
            hash.add(bytes, Int(tag.key.lower)..<Int(tag.value.raw.upper))
            hash.add(UInt8(ascii: ";"))
        }
        // Everything after the tag section: source, verb, parameters (one space after the tags).
        var rest = line.hasTags ? Int(line.tagsRange.upper) : 0
        while rest < Int(line.length) && bytes[rest] == UInt8(ascii: " ") { rest += 1 }
        hash.add(UInt8(ascii: " "))
        hash.add(bytes, rest..<Int(line.length))
        return hash.value
    }

    /// `historical`, `rm-received-ts`, `rm-deleted` (added by a recent-messages service) and `time`
    /// (added by capture): tags that say when or how a copy was received, not what was sent.
    static func isReceiveTimeTag(_ key: ByteRange, in bytes: Span<UInt8>) -> Bool {
        // Cheap first test: each of them starts with `t`, `h` or `r`.
        guard !key.isEmpty else { return false }
        let first = bytes[Int(key.lower)]
        guard first == UInt8(ascii: "t") || first == UInt8(ascii: "h") || first == UInt8(ascii: "r") else {
            return false
        }
        return bytes.equals("historical", at: key) || bytes.equals("rm-received-ts", at: key)
            || bytes.equals("rm-deleted", at: key) || bytes.equals("time", at: key)
    }

    /// When a copy from a recent-messages service was received: its `rm-received-ts`, else the
    /// `tmi-sent-ts` Twitch stamped it with (both milliseconds since 1970); `nil` without either.
    ///
    /// - Complexity: O(tag bytes). - Allocations: none.
    public static func serviceTime(_ bytes: Span<UInt8>, _ line: ParsedLine) -> Timestamp? {
        if let t = line.tag("rm-received-ts", in: bytes)?.integer(in: bytes) { return Timestamp(milliseconds: t) }
        return line.tag("tmi-sent-ts", in: bytes)?.integer(in: bytes).map { Timestamp(milliseconds: $0) }
    }
}
