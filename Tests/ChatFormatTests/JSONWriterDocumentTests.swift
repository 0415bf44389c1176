import ChatFormat
import Testing

/// ``JSONWriter/beginDocument()``: NDJSON lines written one after another into one buffer (a
/// parse-ahead block's renderings) start without a separator, and keep what came before.
@Suite struct JSONWriterDocumentTests {
    @Test("a document after a document: no comma between them, the first kept")
    func documentsInARow() {
        var out = JSONWriter()
        out.beginObject(opening: #"{"a":"#)
        out.number(1)
        out.endObject()
        out.raw(byte: 0x0A)
        out.beginDocument()
        out.beginObject()
        out.key("b")
        out.null()
        out.endObject()
        out.raw(byte: 0x0A)
        out.beginDocument()
        out.string("c")
        #expect(String(decoding: out.bytes, as: UTF8.self) == "{\"a\":1}\n{\"b\":null}\n\"c\"")
    }
}
