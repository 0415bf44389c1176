import ChatTestSupport
import Testing

@testable import ChatFormat

/// ``ByteBuffer/decimal(_:)`` writes its digits in place from the last one back, under one check of
/// the buffer's room: it must write what `String(value)` does, at every digit count and sign, and
/// after whatever the buffer already holds.
@Suite struct ByteBufferTests {
    @Test(
        "decimal writes String(value): -120...120, every power of ten and its neighbours, the extremes, random values")
    func decimal() {
        // Every value around the one- and two-digit fast path too.
        var values: [Int64] = [0, 1, -1, 9, -9, .max, .min, .max - 1, .min + 1] + Array(-120...120)
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        var random = SplitMix64(seed: 0xDEC1)
        for _ in 0..<2_000 { values.append(Int64(bitPattern: random.next()) >> Int64(random.next() % 64)) }
        // One buffer from its smallest capacity, so that numbers meet its end at every offset.
        var buffer = ByteBuffer(capacity: 1)
        var expected: [UInt8] = []
        for value in values {
            buffer.decimal(value)
            buffer.raw(byte: UInt8(ascii: ","))
            expected += Array(String(value).utf8) + [UInt8(ascii: ",")]
        }
        #expect(buffer.bytes == expected)
    }
}
