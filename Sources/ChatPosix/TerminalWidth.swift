#if canImport(Glibc)
    import Glibc
#endif

/// The width of the terminal a status line is drawn on.
public enum TerminalWidth: Sendable {
    /// Columns when neither the terminal nor `COLUMNS` says.
    public static let fallback = 80

    /// The columns of the terminal on `descriptor` (`TIOCGWINSZ`), else `COLUMNS` when it is a positive
    /// number, else ``fallback``.
    ///
    /// - Parameter environment: looks up `COLUMNS` (tests pass a dictionary's lookup).
    /// - Complexity: O(1): one `ioctl`. - Allocations: none from the `ioctl`.
    public static func columns(of descriptor: Int32, environment: (String) -> String?) -> Int {
        var size = winsize()
        // SAFETY: TIOCGWINSZ fills the local `winsize`.
        if unsafe ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = environment("COLUMNS"), let columns = Int(text), columns > 0 { return columns }
        return fallback
    }
}
