import ChatStore
import Testing

@testable import ChatLogStore
@testable import ChatLogs

/// ClickHouse's RowBinary answers, decoded in place; a cut or malformed answer is `nil`, never a trap.
@Suite struct RowBinaryTests {
    /// `value` as a RowBinary `String`: LEB128 length, bytes.
    static func string(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var n = value.count
        repeat {
            out.append(UInt8(n & 0x7F) | (n > 0x7F ? 0x80 : 0))
            n >>= 7
        } while n > 0
        return out + value
    }

    @Test(
        "an answer taken block by block: a string cut by a block's end, in its length or its bytes, is read whole after the next block"
    )
    func blocks() {
        let long = [UInt8](repeating: 0x62, count: 300)
        let answer = Self.string(Array("one".utf8)) + Self.string(long) + Self.string(Array("three".utf8))
        // Every place to cut the answer in two: inside a length (300 takes two LEB128 bytes) or the bytes.
        for cut in 1..<answer.count {
            var rows = RowBinary(Array(answer[..<cut]))
            var got: [[UInt8]] = []
            while let range = rows.string() { got.append(Array(rows.all[range])) }
            rows = rows.rest(then: Array(answer[cut...]))
            while let range = rows.string() { got.append(Array(rows.all[range])) }
            #expect(got == [Array("one".utf8), long, Array("three".utf8)], "cut at \(cut)")
            #expect(rows.isAtEnd && rows.pendingCount == 0)
        }
    }

    @Test("strings of any bytes and lengths past one LEB128 byte, in order")
    func strings() {
        let long = [UInt8](repeating: 0x61, count: 300)
        let raw: [UInt8] = Array("@time=2025-11-20T10:00:00.000Z :a!a@a PRIVMSG #c :\t\\ \n".utf8) + [0, 0xFF]
        var rows = RowBinary(Self.string(raw) + Self.string([]) + Self.string(long))
        #expect(Array(rows.all[rows.string()!]) == raw)
        #expect(rows.string() == (raw.count + 2)..<(raw.count + 2))
        #expect(Array(rows.all[rows.string()!]) == long)
        #expect(rows.isAtEnd)
        #expect(rows.string() == nil)
        #expect(Self.string(long).prefix(2) == [0xAC, 0x02])
    }

    @Test("a cut answer, a length past the end, an endless length: nil")
    func malformed() {
        var cut = RowBinary(Array(Self.string(Array("hello".utf8)).dropLast()))
        #expect(cut.string() == nil)
        var endless = RowBinary([UInt8](repeating: 0xFF, count: 12))
        #expect(endless.string() == nil)
        var huge = RowBinary([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x61])
        #expect(huge.string() == nil)
        var date = RowBinary([0x01])
        #expect(date.date() == nil)
    }

    @Test("dates: days since 1970-01-01, little-endian")
    func dates() {
        var rows = RowBinary([0x0B, 0x50, 0x00, 0x00])  // 20491: 2026-02-07; 0: 1970-01-01
        #expect(rows.date() == 20_491)
        #expect(rows.date() == 0)
        #expect(rows.isAtEnd)
    }
}
