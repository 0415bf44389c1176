public import ChatHTTP
public import ChatLogStore

extension LogsError {
    /// The answer: the text, `text/plain; charset=utf-8`.
    public var response: HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// A path or query number as Rust's `str::parse::<u32>` reads it: ASCII digits (an optional
    /// leading `+`), else the error it would give.
    static func number(_ text: Substring) throws(LogsError) -> Int {
        var digits = text
        if digits.hasPrefix("+") { digits = digits.dropFirst() }
        guard !text.isEmpty else { throw .parseInt("cannot parse integer from empty string") }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
            throw .parseInt("invalid digit found in string")
        }
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= 9, let value = Int(digits) else {
            throw .parseInt("number too large to fit in target type")
        }
        return value
    }
}
