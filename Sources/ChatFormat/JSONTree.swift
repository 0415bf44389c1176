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

    /// The JSON text, compact (no spaces), written by ``JSONWriter`` (its string escaping).
    ///
    /// - Complexity: O(size of the tree). - Allocations: the bytes.
    public var bytes: [UInt8] {
        var writer = JSONWriter()
        write(into: &writer)
        return writer.bytes
    }

    private func write(into writer: inout JSONWriter) {
        switch self {
        case .object(let members):
            writer.beginObject()
            for (key, value) in members {
                writer.key(key)
                value.write(into: &writer)
            }
            writer.endObject()
        case .array(let elements):
            writer.beginArray()
            for value in elements { value.write(into: &writer) }
            writer.endArray()
        case .string(let text): writer.string(text)
        case .number(let value): writer.number(value)
        case .bool(let value): writer.bool(value)
        case .null: writer.null()
        }
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
