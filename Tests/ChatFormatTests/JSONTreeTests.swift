import ChatFormat
import Testing

@Suite struct JSONTreeTests {
    @Test("writes members in order, compact, strings escaped as RFC 8259 requires")
    func writes() {
        let tree: JSONTree = ["b": 1, "a": [true, false, .null], "s": "a\"b\\c\n\u{1}é"]
        #expect(String(decoding: tree.bytes, as: UTF8.self) == #"{"b":1,"a":[true,false,null],"s":"a\"b\\c\n\u0001é"}"#)
        #expect(tree["a"] == [true, false, .null])
        #expect(tree["missing"] == nil)
        #expect(tree != ["a": [true, false, .null], "b": 1, "s": "a\"b\\c\n\u{1}é"])
    }
}
