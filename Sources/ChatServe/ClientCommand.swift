import IRCWire

/// One line a client sent, as the server's session logic sees it: the verb in upper case and the
/// parameters as strings.
///
/// Client lines are few (handshake, JOIN, PING), so this is the control path: strings are fine here.
struct ClientCommand: Sendable, Equatable {
    var verb: String
    var params: [String]

    init(verb: String, params: [String] = []) {
        self.verb = verb
        self.params = params
    }

    /// Parses one client line (without CR LF); tags and source are ignored.
    ///
    /// - Throws: ``LineError`` when the line is not IRC.
    /// - Complexity: O(line length). - Allocations: the strings.
    init(parsing bytes: Span<UInt8>) throws(LineError) {
        let line = try ParsedLine.parse(bytes)
        verb = String(decoding: bytes, in: line.verbRange).uppercased()
        var params: [String] = []
        var cursor = ParamCursor(line)
        while let range = cursor.next(in: bytes) { params.append(String(decoding: bytes, in: range)) }
        self.params = params
    }
}
