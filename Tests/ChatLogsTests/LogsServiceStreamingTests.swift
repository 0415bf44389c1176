import ChatHTTP
import ChatLogStore
import ChatLogs
import Foundation
import Testing

/// How logs answers stream: in time order line by line, reversed a file at a time, and the size limit
/// of a reversed file's answer (before and after the status went out).
@Suite struct LogsServiceStreamingTests {
    typealias T = LogsServiceTests

    @Test("a reversed answer over the size limit is refused with 400, asking for limit and offset")
    func tooLarge() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture, maxAnswerBytes: 100)
        let response = T.get(service, "/channel/alpha/2025/11/20", ["reverse": ""])
        #expect(response.status == 400)
        #expect(T.text(response).hasPrefix("Invalid param: the answer would pass 100 bytes"))
        #expect(T.get(service, "/channel/alpha/2025/11/20", ["reverse": "", "limit": "1"]).status == 200)
    }

    @Test("a reversed answer streams a file at a time, newest first: the exact reverse, in any block size")
    func reverseStreams() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture)
        let range: [String: String?] = ["from": "2025-10-01T00:00:00Z", "to": "2025-12-01T00:00:00Z"]
        for format: [String: String?] in [[:], ["json": ""], ["raw": ""]] {
            let forward = T.get(service, "/channel/alpha", range.merging(format) { $1 }).collectedBody()
            var reversedQuery = range.merging(format) { $1 }
            reversedQuery["reverse"] = ""
            for block in [1, 7, 1 << 16] {
                let stream = try #require(T.get(service, "/channel/alpha", reversedQuery).stream)
                let body = stream.drain(block: block)
                if format["json"] != nil {
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
                    let ids = (object["messages"] as? [[String: Any]])?.map { $0["raw"] as? String }
                    let forwardObject = try #require(
                        try JSONSerialization.jsonObject(with: Data(forward)) as? [String: Any])
                    let forwardIds = (forwardObject["messages"] as? [[String: Any]])?.map { $0["raw"] as? String }
                    #expect(ids == forwardIds?.reversed(), "block \(block)")
                } else {
                    let lines = String(decoding: body, as: UTF8.self).components(separatedBy: "\r\n").dropLast()
                    let forwardLines = String(decoding: forward, as: UTF8.self).components(separatedBy: "\r\n")
                        .dropLast()
                    #expect(Array(lines) == forwardLines.reversed(), "block \(block)")
                    #expect(lines.count == 9)
                }
            }
        }
        // Across files with a window: the 3rd and 4th newest of the range.
        var window = range
        window["reverse"] = ""
        window["offset"] = "2"
        window["limit"] = "2"
        #expect(
            T.text(T.get(service, "/channel/alpha", window))
                == "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n"
                + "[2025-11-20 10:00:06] #alpha carol: Carol subscribed for 3 months! still here\r\n")
    }

    @Test("a reversed answer whose older file passes the size limit ends with an error, never looks complete")
    func reverseCutOff() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture, maxAnswerBytes: 200)
        let range: [String: String?] = [
            "from": "2025-11-20T00:00:00Z", "to": "2025-11-22T00:00:00Z", "reverse": "",
        ]
        let answer = T.get(service, "/channel/alpha", range)
        #expect(answer.status == 200)  // the newest file (3 lines) fits
        let stream = try #require(answer.stream)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var results: [Int] = []
        for _ in 0..<4 { results.append(chunk.withUnsafeMutableBytes { stream.read(into: $0) }) }
        #expect(results.first.map { $0 > 0 } == true)
        #expect(results.contains(-1), "\(results)")
    }

    @Test("an answer in time order streams: any block size gives the same bytes, past the size limit too")
    func streams() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture, maxAnswerBytes: 100)
        for query: [String: String?] in [
            [:], ["json": ""], ["ndjson": ""], ["raw": ""], ["offset": "1", "limit": "3"],
        ] {
            let whole = T.get(T.service(fixture), "/channel/alpha/2025/11/20", query).collectedBody()
            for block in [1, 2, 7, 64, 1 << 16] {
                let response = T.get(service, "/channel/alpha/2025/11/20", query)
                #expect(response.status == 200)
                #expect(response.body.isEmpty)
                let stream = try #require(response.stream)
                #expect(stream.drain(block: block) == whole, "\(query) in blocks of \(block)")
            }
        }
        #expect(T.text(T.get(service, "/channel/alpha/2025/11/20")) == T.nov20Text)
        #expect(T.get(service, "/channel/alpha/2025/11/20", ["limit": "0"]).status == 404)
    }
}
