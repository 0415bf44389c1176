import ChatRun

#if canImport(Glibc)
    import Glibc
#endif

/// Messages for people, on standard error (``write(_:to:)`` also serves standard output).
enum Diagnostics {
    static func error(_ message: String) { write("chatcap: error: \(message)\n") }
    static func warning(_ message: String) { write("chatcap: warning: \(message)\n") }
    static func note(_ message: String) { write("chatcap: \(message)\n") }
    /// The same standard error, for a library's run (``RunConsole``).
    static let console = RunConsole(write: { write($0) })

    /// Writes all of `text` at once, unbuffered (standard error by default); gives up quietly.
    static func write(_ text: String, to descriptor: Int32 = 2) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }
}

enum Environment {
    static func value(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(cString: v)
    }
}

/// A closed pipe must end the program quietly, not kill it.
func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
}
