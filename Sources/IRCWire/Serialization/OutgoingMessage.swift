/// A line we send: tags, optional source, verb and parameters, serialised with IRCv3 tag escaping.
///
/// Outgoing lines are rare (handshake, JOIN, PONG), so this type uses `String`s for clarity; the
/// per-line receive path never builds one.
public struct OutgoingMessage: Sendable, Equatable, CustomStringConvertible {
    public var tags: [OutgoingTag]
    public var source: String?
    public var verb: String
    public var params: [String]
    /// Whether the line carries a secret (PASS): ``description`` then hides the parameters.
    public var isSecret: Bool

    public init(
        tags: [OutgoingTag] = [], source: String? = nil, verb: String, params: [String] = [], isSecret: Bool = false
    ) {
        self.tags = tags
        self.source = source
        self.verb = verb
        self.params = params
        self.isSecret = isSecret
    }

    /// The line as bytes, without CR LF.
    ///
    /// The last parameter is written in trailing form (`:text`) when it is empty, holds a space or
    /// starts with `:`; tags with an empty value are written key-only.
    ///
    /// - Throws: ``SerializationError`` when a part cannot be represented (CR, LF or NUL anywhere; a
    ///   space, a leading `:` or emptiness in a middle parameter; an invalid verb or tag key).
    /// - Complexity: O(output length). - Allocations: appends to `out`.
    public func serialize(into out: inout [UInt8]) throws(SerializationError) {
        if !tags.isEmpty {
            out.append(UInt8(ascii: "@"))
            for (n, tag) in tags.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ";")) }
                guard !tag.key.isEmpty, tag.key.utf8.allSatisfy(Self.isTagKeyByte) else {
                    throw .invalidTagKey(tag.key)
                }
                out.append(contentsOf: tag.key.utf8)
                guard !tag.value.isEmpty else { continue }
                out.append(UInt8(ascii: "="))
                for b in tag.value.utf8 {
                    switch b {
                    case UInt8(ascii: ";"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: ":")])
                    case UInt8(ascii: " "): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "s")])
                    case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                    case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                    case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                    case 0: throw .forbiddenByte(part: "tag \(tag.key)")
                    default: out.append(b)
                    }
                }
            }
            out.append(UInt8(ascii: " "))
        }
        if let source {
            guard !source.isEmpty, !source.utf8.contains(where: { $0 == 0x20 || Self.isForbidden($0) }) else {
                throw .invalidSource
            }
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: source.utf8)
            out.append(UInt8(ascii: " "))
        }
        guard !verb.isEmpty,
            verb.utf8.allSatisfy({ ($0 | 0x20) &- UInt8(ascii: "a") < 26 || $0 &- UInt8(ascii: "0") < 10 })
        else { throw .invalidVerb(verb) }
        out.append(contentsOf: verb.utf8)
        for (n, param) in params.enumerated() {
            if param.utf8.contains(where: Self.isForbidden) { throw .forbiddenByte(part: "parameter \(n + 1)") }
            out.append(UInt8(ascii: " "))
            let needsTrailing = param.isEmpty || param.utf8.contains(0x20) || param.utf8.first == UInt8(ascii: ":")
            if needsTrailing {
                guard n == params.count - 1 else { throw .middleParameter(index: n + 1) }
                out.append(UInt8(ascii: ":"))
            }
            out.append(contentsOf: param.utf8)
        }
    }

    /// The serialised line followed by CR LF, ready to send.
    public func wireBytes() throws(SerializationError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + params.reduce(0) { $0 + $1.utf8.count })
        try serialize(into: &out)
        out.append(0x0D)
        out.append(0x0A)
        return out
    }

    /// The line for logs: a secret line shows its verb only.
    public var description: String {
        if isSecret { return "\(verb) ***" }
        var out: [UInt8] = []
        do { try serialize(into: &out) } catch { return "<unserialisable \(verb): \(error)>" }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isForbidden(_ b: UInt8) -> Bool { b == 0 || b == 0x0D || b == 0x0A }
    private static func isTagKeyByte(_ b: UInt8) -> Bool {
        (b | 0x20) &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10 || b == UInt8(ascii: "-")
            || b == UInt8(ascii: "/") || b == UInt8(ascii: ".") || b == UInt8(ascii: "+")
    }
}

/// One tag of an outgoing line. An empty value is written key-only.
public struct OutgoingTag: Sendable, Equatable {
    public var key: String
    public var value: String
    public init(_ key: String, _ value: String = "") {
        self.key = key
        self.value = value
    }
}

/// Why an outgoing line could not be written.
public enum SerializationError: Error, Sendable, Equatable {
    case invalidTagKey(String)
    case invalidSource
    case invalidVerb(String)
    /// CR, LF or NUL in a part of the line.
    case forbiddenByte(part: String)
    /// A parameter that needs trailing form (empty, with a space, or starting with `:`) is not last.
    case middleParameter(index: Int)
}
