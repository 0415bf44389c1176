public import IRCWire

/// A parsed line as plain strings, in the shape of the ircdocs `atoms` (tags, source, verb, params).
public struct Atoms: Sendable, Equatable, CustomStringConvertible {
    public var tags: [String: String]?
    public var source: String?
    public var verb: String
    public var params: [String]

    public init(tags: [String: String]?, source: String?, verb: String, params: [String]) {
        self.tags = tags
        self.source = source
        self.verb = verb
        self.params = params
    }

    /// Parses `line` with ``ParsedLine`` and turns every part into strings (tag values unescaped,
    /// duplicates resolved last-wins).
    public static func parse(_ line: [UInt8]) throws(LineError) -> Atoms {
        let span = line.span
        let parsed = try ParsedLine.parse(span)
        var tags: [String: String]? = nil
        if parsed.hasTags {
            var dict: [String: String] = [:]
            var cursor = parsed.tags
            while let tag = cursor.next(in: span) {
                var value: [UInt8] = []
                tag.value.unescape(in: span) { value.append($0) }
                dict[string(span, tag.key)] = String(decoding: value, as: UTF8.self)
            }
            tags = dict
        }
        var params: [String] = []
        var cursor = ParamCursor(parsed)
        while let p = cursor.next(in: span) { params.append(string(span, p)) }
        return Atoms(
            tags: tags, source: parsed.hasSource ? string(span, parsed.sourceRange) : nil,
            verb: string(span, parsed.verbRange), params: params)
    }

    public var description: String {
        "tags=\(tags.map { "\($0)" } ?? "nil") source=\(source ?? "nil") verb=\(verb) params=\(params)"
    }
}

/// The bytes of `range` in `span` as a `String` (invalid UTF-8 repaired).
public func string(_ span: Span<UInt8>, _ range: ByteRange) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(range.count)
    for i in range.range { bytes.append(span[i]) }
    return String(decoding: bytes, as: UTF8.self)
}

/// The unescaped value of a tag as a `String`.
public func string(_ span: Span<UInt8>, _ value: TagValue) -> String {
    var bytes: [UInt8] = []
    value.unescape(in: span) { bytes.append($0) }
    return String(decoding: bytes, as: UTF8.self)
}
