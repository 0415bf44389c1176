import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The controlling terminal in full-screen mode: raw keyboard (no echo, no line editing, no
/// signals from keys — Ctrl-C arrives as a byte), the alternate screen, the cursor hidden and
/// automatic wrap off (a row the terminal measures wider than we did is cut, never wrapped onto
/// the next row).
///
/// Opens `/dev/tty` rather than using standard input and output, so `watch -` can read chat from
/// a pipe while the keyboard and screen stay on the terminal. ``restore()`` undoes everything and
/// is idempotent; `deinit` calls it too, and ``TerminalSignals`` covers crashes.
///
/// Confined to the UI thread.
@safe
public final class TerminalDevice {
    public let descriptor: Int32
    private var saved = termios()
    public private(set) var isFullScreen = false

    static let enter: [UInt8] = Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
    static let leave: [UInt8] = Array("\u{1B}[0m\u{1B}[r\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l".utf8)

    /// Opens the terminal at `path`.
    public init(path: String = "/dev/tty") throws(TerminalError) {
        // SAFETY: `open` reads the path's NUL-terminated bytes for the duration of the call.
        let fd = unsafe open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .notATerminal(path: path, errno: errno) }
        guard isatty(fd) != 0 else {
            let e = errno
            close(fd)
            throw .notATerminal(path: path, errno: e)
        }
        descriptor = fd
    }

    deinit {
        restore()
        close(descriptor)
    }

    /// Raw mode, alternate screen, hidden cursor, no automatic wrap.
    public func enterFullScreen() throws(TerminalError) {
        guard !isFullScreen else { return }
        // SAFETY: `saved` and `raw` are termios values owned here.
        guard unsafe tcgetattr(descriptor, &saved) == 0 else { throw .failed(call: "tcgetattr", errno: errno) }
        var raw = saved
        unsafe cfmakeraw(&raw)
        guard unsafe tcsetattr(descriptor, TCSAFLUSH, &raw) == 0 else { throw .failed(call: "tcsetattr", errno: errno) }
        isFullScreen = true
        TerminalSignals.armCrashRestore(descriptor: descriptor, modes: saved)
        write(Self.enter)
    }

    /// Leaves the alternate screen (the normal screen comes back as it was), shows the cursor and
    /// restores the saved modes. Idempotent.
    public func restore() {
        guard isFullScreen else { return }
        isFullScreen = false
        TerminalSignals.disarmCrashRestore()
        write(Self.leave)
        // SAFETY: `saved` holds the modes read by `enterFullScreen`.
        _ = unsafe tcsetattr(descriptor, TCSAFLUSH, &saved)
    }

    /// Rows and columns (24 × 80 when the terminal does not say).
    public var size: (rows: Int, columns: Int) {
        var ws = winsize()
        // SAFETY: TIOCGWINSZ fills the local `winsize`.
        if unsafe ioctl(descriptor, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_row > 0, ws.ws_col > 0 {
            return (Int(ws.ws_row), Int(ws.ws_col))
        }
        return (24, 80)
    }

    /// Writes all of `bytes` (retrying on EINTR and partial writes); gives up quietly when the
    /// terminal went away.
    public func write(_ bytes: [UInt8]) {
        _ = writeAllWaiting(descriptor, bytes.span)
    }

    /// Reads what the keyboard sent (call when `poll` says the descriptor is readable).
    ///
    /// - Returns: the byte count, 0 at end of input (the terminal is gone), or -1 to try again.
    public func read(into buffer: inout [UInt8]) -> Int {
        // SAFETY: reads at most `buffer.count` bytes into the caller's buffer.
        let n = unsafe buffer.withUnsafeMutableBytes { unsafe Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if n < 0 { return errno == EINTR || errno == EAGAIN ? -1 : 0 }
        return n
    }
}

@available(*, unavailable)
extension TerminalDevice: Sendable {}
