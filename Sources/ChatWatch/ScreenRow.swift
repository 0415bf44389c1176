/// One rendered terminal row: the bytes to write (text and SGR sequences, ending in a reset when
/// styled) and the columns they cover. Rows are compared by value to find what changed on screen.
public struct ScreenRow: Sendable, Hashable {
    public var bytes: [UInt8]
    /// Columns covered (at most the screen width it was laid out for).
    public var width: Int

    public init(bytes: [UInt8] = [], width: Int = 0) {
        self.bytes = bytes
        self.width = width
    }

    public static let blank = ScreenRow()

    /// The row's text without escape sequences (for tests and diagnostics).
    public var plainText: String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x1B, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") {
                i += 2
                while i < bytes.count && !(bytes[i] >= 0x40 && bytes[i] <= 0x7E) { i += 1 }
                i += 1
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
