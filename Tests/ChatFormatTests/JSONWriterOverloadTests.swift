import ChatFormat
import Testing

/// A string literal is a `String` first, so with an unlabelled `key(_: String)` or `string(_: String)`
/// beside the `StaticString` ones, every `key("…")` of the encoders once resolved to the `String`
/// overload and escaped its key a byte at a time (21,897 instructions a JSON line against 13,162).
/// The `String` overloads are disfavoured; a literal is written as it is (literals need no escaping),
/// which tells the two apart.
@Suite struct JSONWriterLiteralOverloadTests {
    @Test("literal keys and strings take the StaticString overloads; String values are escaped")
    func literalsAreStaticStrings() {
        var out = JSONWriter()
        out.beginObject()
        out.key("k\u{1}")
        out.string("v\u{1}")
        let key: String = "k\u{1}"
        out.key(key)
        let value: String = "v\u{1}"
        out.string(value)
        out.endObject()
        #expect(String(decoding: out.bytes, as: UTF8.self) == "{\"k\u{1}\":\"v\u{1}\",\"k\\u0001\":\"v\\u0001\"}")
    }
}
