/// The body of a recent-messages v2 answer (`GET /api/v2/recent-messages/<login>`), decoded:
///
/// ```
/// {"messages": ["@historical=1;rm-received-ts=…;… :nick!nick@nick.tmi.twitch.tv PRIVMSG #c :hi", …],
///  "error": null, "error_code": null}
/// ```
///
/// The decoding half of the codec whose encoding half is ``RecentMessagesRenderer`` (with
/// ``HistoricalLine``) beside it: the backfill (ChatLive) reads with this what serve, capture and
/// tail answer with that (`RecentMessagesCodecTests` round-trips them).
///
/// Only these three members are read; any other member is skipped whatever its value. A small
/// decoder of its own (the pure modules import no Foundation): strict JSON (RFC 8259), strings
/// unescaped to UTF-8 (`\uXXXX` and surrogate pairs included; a lone surrogate becomes U+FFFD).
public struct RecentMessagesResponse: Sendable, Equatable {
    /// The raw IRC lines, oldest first, as UTF-8 bytes without CR LF.
    public var messages: [[UInt8]]
    /// The service's error text, when it sent one.
    public var error: String?
    /// The service's error code (`channel_not_joined`, `channel_ignored`, …), when it sent one.
    public var errorCode: String?

    public init(messages: [[UInt8]], error: String? = nil, errorCode: String? = nil) {
        self.messages = messages
        self.error = error
        self.errorCode = errorCode
    }

    /// Why a body is not a recent-messages answer: what was wrong and at which byte.
    public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "not a recent-messages answer: \(reason) at byte \(offset)" }
    }

    /// Decodes `body`.
    ///
    /// - Throws: ``DecodeError`` when `body` is not one JSON object, or `messages` is not an array of
    ///   strings.
    /// - Complexity: O(body length). - Allocations: one array per message.
    public static func decode(_ body: [UInt8]) throws(DecodeError) -> RecentMessagesResponse {
        var reader = JSONReader(bytes: body)
        var result = RecentMessagesResponse(messages: [])
        try reader.skipSpace()
        try reader.expect(UInt8(ascii: "{"))
        try reader.skipSpace()
        if try !reader.consume(UInt8(ascii: "}")) {
            repeat {
                try reader.skipSpace()
                let key = try reader.string()
                try reader.skipSpace()
                try reader.expect(UInt8(ascii: ":"))
                try reader.skipSpace()
                switch key {
                case Array("messages".utf8):
                    result.messages = try reader.stringArray()
                case Array("error".utf8):
                    result.error = try reader.optionalString().map { String(decoding: $0, as: UTF8.self) }
                case Array("error_code".utf8):
                    result.errorCode = try reader.optionalString().map { String(decoding: $0, as: UTF8.self) }
                default:
                    try reader.skipValue(depth: 0)
                }
                try reader.skipSpace()
            } while try reader.consume(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"))
        }
        try reader.skipSpace()
        guard reader.position == body.count else { throw reader.fail("bytes after the object") }
        return result
    }
}

/// A cursor over JSON text for ``RecentMessagesResponse``.
private struct JSONReader {
    let bytes: [UInt8]
    var position = 0

    func fail(_ reason: String) -> RecentMessagesResponse.DecodeError {
        RecentMessagesResponse.DecodeError(offset: position, reason: reason)
    }

    mutating func skipSpace() throws(RecentMessagesResponse.DecodeError) {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func consume(_ byte: UInt8) throws(RecentMessagesResponse.DecodeError) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    mutating func expect(_ byte: UInt8) throws(RecentMessagesResponse.DecodeError) {
        guard try consume(byte) else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
    }

    mutating func literal(_ word: String) throws(RecentMessagesResponse.DecodeError) {
        for b in word.utf8 { try expect(b) }
    }

    mutating func optionalString() throws(RecentMessagesResponse.DecodeError) -> [UInt8]? {
        if position < bytes.count, bytes[position] == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        return try string()
    }

    mutating func stringArray() throws(RecentMessagesResponse.DecodeError) -> [[UInt8]] {
        try expect(UInt8(ascii: "["))
        var out: [[UInt8]] = []
        try skipSpace()
        if try consume(UInt8(ascii: "]")) { return out }
        repeat {
            try skipSpace()
            out.append(try string())
            try skipSpace()
        } while try consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return out
    }

    /// A string's value, unescaped, as UTF-8.
    mutating func string() throws(RecentMessagesResponse.DecodeError) -> [UInt8] {
        try expect(UInt8(ascii: "\""))
        var out: [UInt8] = []
        while true {
            guard position < bytes.count else { throw fail("unterminated string") }
            let b = bytes[position]
            position += 1
            switch b {
            case UInt8(ascii: "\""):
                return out
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[position]
                position += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), position + 1 < bytes.count, bytes[position] == 0x5C,
                        bytes[position + 1] == UInt8(ascii: "u")
                    {
                        let save = position
                        position += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            position = save
                        }
                    }
                    let value = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    out.append(contentsOf: String(value).utf8)
                default:
                    position -= 1
                    throw fail("unknown escape")
                }
            default:
                guard b >= 0x20 else {
                    position -= 1
                    throw fail("control character in a string")
                }
                out.append(b)
            }
        }
    }

    mutating func hex4() throws(RecentMessagesResponse.DecodeError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail("bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Skips any value (nested at most 64 deep).
    mutating func skipValue(depth: Int) throws(RecentMessagesResponse.DecodeError) {
        guard depth < 64 else { throw fail("nested too deep") }
        guard position < bytes.count else { throw fail("missing value") }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = bytes[position] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let isObject = close == UInt8(ascii: "}")
            position += 1
            try skipSpace()
            if try consume(close) { return }
            repeat {
                try skipSpace()
                if isObject {
                    _ = try string()
                    try skipSpace()
                    try expect(UInt8(ascii: ":"))
                    try skipSpace()
                }
                try skipValue(depth: depth + 1)
                try skipSpace()
            } while try consume(UInt8(ascii: ","))
            try expect(close)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            let start = position
            while position < bytes.count,
                "+-.eE0123456789".utf8.contains(bytes[position])
            {
                position += 1
            }
            guard position > start else { throw fail("unexpected byte") }
        }
    }
}
