import ChatLogStore
import ChatLogs
import Testing

@Suite struct LogAnswerTests {
    static func answer(
        _ count: Int, format: LogFormat = .text, reverse: Bool = false, offset: Int = 0, limit: Int? = nil
    ) throws -> (String, LogAnswer) {
        var answer = LogAnswer(format: format, reverse: reverse, offset: offset, limit: limit, maxBytes: 1 << 20)
        for i in 0..<count {
            let line = Array((format == .json ? "\(i)" : "\(i)\r\n").utf8)
            try answer.append(line.span)
        }
        return (String(decoding: answer.body(), as: UTF8.self), answer)
    }

    @Test("lines in order; json in {\"messages\":[…]} with commas")
    func shapes() throws {
        #expect(try Self.answer(3).0 == "0\r\n1\r\n2\r\n")
        #expect(try Self.answer(3, format: .json).0 == #"{"messages":[0,1,2]}"#)
        #expect(try Self.answer(1, format: .json).0 == #"{"messages":[0]}"#)
    }

    @Test("offset and limit after the order, reversed or not, at every window", arguments: [false, true])
    func windows(reverse: Bool) throws {
        for count in [0, 1, 5, 200] {
            for offset in [0, 1, 3, 250] {
                for limit in [nil, 0, 1, 2, 100] as [Int?] {
                    let (body, answer) = try Self.answer(count, reverse: reverse, offset: offset, limit: limit)
                    var order = Array(0..<count)
                    if reverse { order.reverse() }
                    let chosen = order.dropFirst(offset).prefix(limit ?? .max)
                    #expect(body == chosen.map { "\($0)\r\n" }.joined(), "\(count) \(offset) \(limit as Any)")
                    #expect(answer.count == chosen.count)
                }
            }
        }
    }

    @Test("in time order a full answer stops taking lines; past maxBytes it fails")
    func bounds() throws {
        var answer = LogAnswer(format: .text, limit: 2, maxBytes: 8)
        try answer.append(Array("abc".utf8).span)
        #expect(!answer.isFull)
        try answer.append(Array("def".utf8).span)
        #expect(answer.isFull)
        var small = LogAnswer(format: .text, maxBytes: 5)
        try small.append(Array("abc".utf8).span)
        #expect(throws: LogAnswerError.tooLarge(maxBytes: 5)) { try small.append(Array("def".utf8).span) }
    }
}
