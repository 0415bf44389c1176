/// Where a run says things for people: standard error in the executable, a buffer in a test.
public struct RunConsole: Sendable {
    /// Writes `text` as it is (a status line's control sequences included).
    public var write: @Sendable (String) -> Void

    public init(write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// `chatcap: text`, a line.
    public func note(_ text: String) { write("chatcap: \(text)\n") }
    /// `chatcap: warning: text`, a line.
    public func warning(_ text: String) { write("chatcap: warning: \(text)\n") }
    /// `chatcap: error: text`, a line.
    public func error(_ text: String) { write("chatcap: error: \(text)\n") }
}
