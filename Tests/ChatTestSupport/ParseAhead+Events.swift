public import ChatInput

/// The stage's events one at a time, as ``MergeReader/next(_:)`` hands them (a line as a `.line`
/// event with its input's name), for comparing the two in tests (ChatInputTests, and `make tsan`'s StressChecks); the commands take
/// ``ParseAhead/next(lines:events:)``.
extension ParseAhead {
    /// Hands the next event in merged order to `body`, with its bytes (valid during the call).
    ///
    /// - Returns: `false` when the reader handed out everything (or ``finish()`` was called), and
    ///   `body` was not called.
    public func next(_ body: (MergeEvent, Span<UInt8>) -> Void) -> Bool {
        next(
            lines: { line, bytes in
                body(.line(line.location(named: inputName(at: line.inputIndex)), line.message), bytes)
                return false
            },
            events: { event, bytes in
                body(event, bytes)
                return false
            })
    }

    /// Hands every remaining event to `body`, in merged order; the reader thread has ended when it
    /// returns.
    public func forEachEvent(_ body: (MergeEvent, Span<UInt8>) -> Void) {
        while next(body) {}
        finish()
    }
}
