/// A JSON value built in memory and written once: the shape of documents made at start (the OpenAPI
/// document), not of answers (those stream through ChatFormat's `JSONWriter`). Object members keep
/// their order, so the same tree always writes the same bytes.
public indirect enum JSONTree: Sendable, Equatable {
    case object([(String, JSONTree)])
    case array([JSONTree])
    case string(String)
    case number(Int)
    case bool(Bool)
    case null

    public static func == (a: JSONTree, b: JSONTree) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let x), .array(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.null, .null): true
        default: false
        }
    }

    /// The member `key` of an object (the first of that name), else `nil`.
    public subscript(key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The JSON text, compact (no spaces), strings escaped as RFC 8259 requires.
    ///
    /// - Complexity: O(size of the tree). - Allocations: the bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(string: key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, value) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): Self.write(string: text, into: &out)
        case .number(let value): out += Array(String(value).utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .null: out += Array("null".utf8)
        }
    }

    private static func write(string text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), b]
            case UInt8(ascii: "\n"): out += Array(#"\n"#.utf8)
            case 0..<0x20: out += Array(#"\u00"#.utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]]
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONTree: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONTree...) { self = .array(elements) }
    /// Members in the order written (a dictionary literal keeps it).
    public init(dictionaryLiteral elements: (String, JSONTree)...) { self = .object(elements) }
}
