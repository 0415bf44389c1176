import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Signals a full-screen view acts on.
public struct TerminalSignal: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// SIGWINCH: lay out again.
    public static let resize = TerminalSignal(rawValue: 1)
    /// SIGINT, SIGTERM or SIGHUP: restore the terminal and end.
    public static let quit = TerminalSignal(rawValue: 2)
}

/// Signal handling for the full-screen view. Handlers only set a flag and write one byte to a
/// non-blocking wake pipe (both async-signal-safe); the UI loop polls the pipe's read end with the
/// keyboard, takes the flags with ``take()``, and restores the terminal itself.
///
/// While the terminal is in full-screen mode, a crash signal (SIGSEGV, SIGBUS, SIGILL, SIGTRAP,
/// SIGFPE, SIGABRT — a Swift trap is SIGILL or SIGTRAP) first puts the terminal back (leave the
/// alternate screen, show the cursor, saved modes) and then goes on to the handler that was there
/// before (the Swift backtracer, or the default action), so a crash never leaves a broken terminal.
///
/// Process-wide state: install once per process run, on the UI thread, before starting others
/// (it also unblocks the four signals on that thread, should the parent have blocked them).
enum TerminalSignals {
    /// Installs the handlers (idempotent); returns the wake pipe's read end.
    static func install() throws(TerminalError) -> Int32 {
        let existing = wakeRead.load(ordering: .acquiring)
        if existing >= 0 { return existing }
        var fds: (Int32, Int32) = (-1, -1)
        // SAFETY: `fds` is a local pair of two Int32s, the array of two `pipe` expects.
        let rc = unsafe withUnsafeMutablePointer(to: &fds) { p in
            unsafe p.withMemoryRebound(to: Int32.self, capacity: 2) { unsafe pipe($0) }
        }
        guard rc == 0 else { throw .failed(call: "pipe", errno: errno) }
        for fd in [fds.0, fds.1] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeWrite.store(fds.1, ordering: .releasing)
        wakeRead.store(fds.0, ordering: .releasing)
        var unblock = sigset_t()
        // SAFETY: `unblock` is a local signal set.
        unsafe sigemptyset(&unblock)
        for sig in [SIGWINCH, SIGINT, SIGTERM, SIGHUP] {
            handle(sig, with: flagHandler)
            _ = unsafe sigaddset(&unblock, sig)
        }
        // A parent may have started us with these blocked (they are inherited): the view depends on
        // them. Threads started after this inherit the unblocked mask.
        _ = unsafe pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT] { handle(sig, with: crashHandler) }
        return fds.0
    }

    /// Takes the signals raised since the last call, and drains the wake pipe.
    static func take() -> TerminalSignal {
        let fd = wakeRead.load(ordering: .acquiring)
        if fd >= 0 {
            var sink = InlineArray<64, UInt8>(repeating: 0)
            var span = sink.mutableSpan
            // SAFETY: reads at most `span.count` bytes into the local buffer.
            while unsafe span.withUnsafeMutableBytes({ unsafe read(fd, $0.baseAddress, $0.count) }) > 0 {}
        }
        let bits = pending.exchange(0, ordering: .acquiring)
        var result: TerminalSignal = []
        if bits & (1 << UInt32(SIGWINCH)) != 0 { result.insert(.resize) }
        if bits & (1 << UInt32(SIGINT) | 1 << UInt32(SIGTERM) | 1 << UInt32(SIGHUP)) != 0 { result.insert(.quit) }
        return result
    }

    /// While armed, a crash restores the terminal on `descriptor` to `modes` first.
    static func armCrashRestore(descriptor: Int32, modes: termios) {
        // SAFETY: `savedModes` points to one termios, allocated once; it is written before the
        // descriptor is published (release) and read by the handler only after loading it.
        unsafe savedModes.pointee = modes
        crashDescriptor.store(descriptor, ordering: .releasing)
    }

    static func disarmCrashRestore() { crashDescriptor.store(-1, ordering: .releasing) }

    private static func handle(_ sig: Int32, with handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        // SAFETY: setting the handler member of the local action's union.
        unsafe action.__sigaction_handler.sa_handler = handler
        // SAFETY: `action.sa_mask` is a local sigset_t; `previousActions` has room for signal
        // numbers below 65 (every signal installed here is below 32).
        unsafe sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        _ = unsafe sigaction(sig, &action, previousActions + Int(sig))
    }
}

private let pending = Atomic<UInt32>(0)
private let wakeRead = Atomic<Int32>(-1)
private let wakeWrite = Atomic<Int32>(-1)
private let crashDescriptor = Atomic<Int32>(-1)
nonisolated(unsafe) private let savedModes = UnsafeMutablePointer<termios>.allocate(capacity: 1)
nonisolated(unsafe) private let previousActions: UnsafeMutablePointer<sigaction> = {
    let p = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    // SAFETY: initialises the 65 slots just allocated; never freed (process lifetime).
    unsafe p.initialize(repeating: sigaction(), count: 65)
    return unsafe p
}()
/// What the crash handler writes: reset attributes and scroll region, wrap and cursor on, main screen.
private let restoreSequence: StaticString = "\u{1B}[0m\u{1B}[r\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l\r\n"

private func flagHandler(_ sig: Int32) {
    let saved = errno
    pending.bitwiseOr(1 << UInt32(sig), ordering: .releasing)
    let fd = wakeWrite.load(ordering: .acquiring)
    if fd >= 0 {
        var byte: UInt8 = 1
        // SAFETY: writes one byte from a local; the pipe is non-blocking, so a full pipe drops it
        // (a byte is already waiting then).
        _ = unsafe write(fd, &byte, 1)
    }
    errno = saved
}

private func crashHandler(_ sig: Int32) {
    let fd = crashDescriptor.exchange(-1, ordering: .acquiring)
    if fd >= 0 {
        // SAFETY: a static string's bytes; `savedModes` was written before `fd` was published.
        restoreSequence.withUTF8Buffer { _ = unsafe write(fd, $0.baseAddress, $0.count) }
        _ = unsafe tcsetattr(fd, TCSAFLUSH, savedModes)
    }
    // SAFETY: `previousActions[sig]` was filled by `sigaction` when this handler was installed.
    _ = unsafe sigaction(sig, previousActions + Int(sig), nil)
    raise(sig)
}
