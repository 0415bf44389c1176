/// Checks UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF) incrementally,
/// chunk by chunk, so that a code point split across frames or reads is checked whole. RFC 6455 §8.1
/// asks an endpoint to fail a connection whose text message or close reason is not UTF-8.
///
/// State: how many continuation bytes the code point begun so far still needs, and the range its next
/// byte must fall in (narrower than `80...BF` right after `E0`, `ED`, `F0` and `F4`).
///
/// Pure: no I/O. A value; confined to the owner's thread.
@safe
public struct UTF8Validator: Equatable, Sendable {
    /// Continuation bytes still needed by the code point begun.
    private var needed: UInt8 = 0
    /// The range the next continuation byte must fall in.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// High bit of each byte of a word: a word without any is 8 ASCII bytes.
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    public init() {}

    /// Whether the bytes so far end on a code point boundary (a message may end here).
    public var isAtBoundary: Bool { needed == 0 }

    /// Checks `count` bytes at `start` of `buffer`, going on from the previous chunk.
    ///
    /// - Returns: `nil` when they are valid so far, else the offset (from `start`) of the first byte
    ///   found invalid; the validator is then in no useful state (the caller fails the connection).
    /// - Precondition: `start + count <= buffer.count`.
    /// - Complexity: O(`count`): 8 bytes a step while they are ASCII, then byte by byte.
    /// - Allocations: none.
    public mutating func check(_ buffer: UnsafeMutableRawBufferPointer, start: Int, count: Int) -> Int? {
        precondition(start >= 0 && count >= 0 && start + count <= buffer.count, "bad range")
        let end = start + count
        var i = start
        while i < end {
            if needed == 0 {
                while end - i >= 8 {
                    // SAFETY: `i + 8 <= end <= buffer.count`: the 8 bytes lie inside the lent buffer.
                    let word = unsafe buffer.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    if word & Self.highs != 0 { break }
                    i += 8
                }
                guard i < end else { return nil }
            }
            // SAFETY: `start <= i < end <= buffer.count`.
            let byte = unsafe buffer[i]
            if needed > 0 {
                guard byte >= lower && byte <= upper else { return i - start }
                needed -= 1
                lower = 0x80
                upper = 0xBF
            } else {
                switch byte {
                case 0x00...0x7F: break
                case 0xC2...0xDF: needed = 1
                case 0xE0:
                    needed = 2
                    lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED:
                    needed = 2
                    upper = 0x9F
                case 0xF0:
                    needed = 3
                    lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4:
                    needed = 3
                    upper = 0x8F
                default: return i - start
                }
            }
            i += 1
        }
        return nil
    }

    /// Whether `bytes` are whole, valid UTF-8 (a close frame's reason), by the standard library's check.
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public static func isValid(_ bytes: Span<UInt8>) -> Bool {
        do {
            _ = try UTF8Span(validating: bytes)
            return true
        } catch {
            return false
        }
    }
}
