import ChatFormat
import ChatPosix
import ChatStore

#if canImport(Glibc)
    import Glibc
#endif

/// The UI thread of `watch`: reads keys, takes each channel's mailbox at most once per frame tick
/// (30 a second), lays the current channel out and writes only what changed on screen.
///
/// ```
///  row 0          header: #channel (k/n) · room settings · msgs/s · feed status
///  rows 1…h       messages (the scrollable region)
///  row h+1        footer: keys, LIVE or PAUSED · N new, filter, end of replay — or the / prompt
/// ```
///
/// A frame is drawn only when something changed — a change set for the shown channel, a key, a
/// resize, new channel information — and at most once per ``frameInterval``. The terminal state is
/// the caller's (``WatchSession`` restores it).
///
/// Confined to the thread that calls ``run(wake:)``.
final class WatchScreen {
    private let terminal: TerminalDevice
    private let board: WatchBoard
    private var context: LayoutContext
    private let frameInterval: Duration
    private var views: [ChannelView] = []
    private var current = 0
    private var boardVersion = -1
    private var channels: [WatchBoard.Channel] = []
    private var status = FeedStatus.starting
    private var problemCount = 0
    private var screen = Screen()
    private var decoder = KeyDecoder()
    /// The filter being typed after `/`.
    private var prompt: String? = nil
    private var size: (rows: Int, columns: Int)
    private var dirty = true
    private var quit = false
    private(set) var stats = WatchStats()
    /// When the last frames were drawn (a ring of 32), for the peak frames per second.
    private var recentFrames = InlineArray<32, ContinuousClock.Instant?>(repeating: nil)
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    /// How long a lone ESC waits for the rest of a sequence.
    static let escapeDelay: Duration = .milliseconds(30)

    init(terminal: TerminalDevice, board: WatchBoard, context: LayoutContext, frameInterval: Duration) {
        self.terminal = terminal
        self.board = board
        self.context = context
        self.frameInterval = frameInterval
        size = terminal.size
        started = clock.now
    }

    /// Runs until `q`, Ctrl-C, a quit signal or the terminal going away.
    func run(wake: Int32) {
        var nextFrame = clock.now
        var escapeDeadline: ContinuousClock.Instant? = nil
        var buffer = [UInt8](repeating: 0, count: 512)
        while !quit {
            let now = clock.now
            var wait = nextFrame - now
            if let d = escapeDeadline { wait = min(wait, d - now) }
            let timeout = wait <= .zero ? 0 : Int32(wait.inMilliseconds + 1)
            var fds = InlineArray<2, pollfd>(repeating: pollfd())
            fds[0] = pollfd(fd: terminal.descriptor, events: Int16(POLLIN), revents: 0)
            fds[1] = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
            var span = fds.mutableSpan
            // SAFETY: `poll` reads and writes the two local pollfd values.
            let ready = unsafe span.withUnsafeMutableBufferPointer { unsafe poll($0.baseAddress, 2, timeout) }
            if ready > 0 && fds[0].revents != 0 {
                let n = terminal.read(into: &buffer)
                if n == 0 { break }  // the terminal went away
                if n > 0 {
                    decoder.feed(buffer[0..<n]) { handle($0) }
                    escapeDeadline = decoder.isPending ? clock.now + Self.escapeDelay : nil
                }
            }
            if ready > 0 && fds[1].revents != 0 {
                let signals = TerminalSignals.take()
                if signals.contains(.quit) { quit = true }
                if signals.contains(.resize) {
                    size = terminal.size
                    screen.invalidate()
                    dirty = true
                }
            }
            if let d = escapeDeadline, clock.now >= d {
                decoder.flush { handle($0) }
                escapeDeadline = nil
            }
            if !quit && clock.now >= nextFrame {
                tick()
                nextFrame = clock.now + frameInterval
            }
        }
        stats.seconds = (clock.now - started).inSeconds
    }

    // MARK: Frames

    /// One frame tick: channel news, one take per mailbox, and a draw if anything changed.
    private func tick() {
        if board.version != boardVersion { refreshBoard() }
        for (k, view) in views.enumerated() {
            guard let change = view.mailbox?.take() else { continue }
            stats.takes += 1
            let effect = view.apply(change)
            if k == current && effect != .none { dirty = true }
        }
        if dirty { draw() }
    }

    private func refreshBoard() {
        boardVersion = board.version
        channels = board.channels
        let newStatus = board.status
        if newStatus.isFinal && !status.isFinal {
            stats.feedSeconds = (clock.now - started).inSeconds
            stats.redrawsWhileFeeding = stats.redraws
            stats.bytesWhileFeeding = stats.bytes
        }
        status = newStatus
        problemCount = board.problems.count
        for (k, channel) in channels.enumerated() {
            if k == views.count { views.append(ChannelView(name: channel.name)) }
            if views[k].index == nil, let index = channel.index, let mailbox = channel.mailbox {
                views[k].attach(index: index, mailbox: mailbox)
            }
        }
        dirty = true
    }

    private var messageHeight: Int { max(0, size.rows - 2) }

    private func draw() {
        dirty = false
        let columns = size.columns
        var rows: [ScreenRow] = []
        rows.reserveCapacity(size.rows)
        if size.rows < 3 {
            var t = StyledText()
            t.append("terminal too small", .plain)
            rows.append(t.truncated(width: columns))
            while rows.count < size.rows { rows.append(.blank) }
        } else {
            rows.append(header(columns))
            if current < views.count {
                rows.append(contentsOf: views[current].compose(height: messageHeight, width: columns, with: context))
            } else {
                var t = StyledText()
                t.append("waiting for chat…", EntryFormatter.system)
                rows.append(t.truncated(width: columns))
                while rows.count < size.rows - 1 { rows.append(.blank) }
            }
            rows.append(footer(columns))
        }
        var out = Control.beginFrame
        let update = screen.update(to: rows, width: columns, scrollable: 1..<(1 + messageHeight), into: &out)
        guard !update.isEmpty else { return }
        out.append(contentsOf: Control.endFrame)
        terminal.write(out)
        countFrame()
        stats.bytes += out.count
        stats.rowsWritten += update.rowsWritten
        stats.scrolledRows += update.scrolled
        if update.repainted { stats.repaints += 1 }
    }

    /// Counts a drawn frame and the most frames seen within one second.
    private func countFrame() {
        let now = clock.now
        recentFrames[stats.redraws % 32] = now
        stats.redraws += 1
        var inLastSecond = 0
        for i in 0..<32 {
            if let t = recentFrames[i], now - t < .seconds(1) { inLastSecond += 1 }
        }
        stats.peakRedrawsPerSecond = max(stats.peakRedrawsPerSecond, inLastSecond)
    }

    static let bar = TextStyle(foreground: RGB(hex: 0xE8E8F0), background: RGB(hex: 0x2A2A40))
    static let barBold = TextStyle(foreground: RGB(hex: 0xFFFFFF), background: RGB(hex: 0x2A2A40), bold: true)
    static let barDim = TextStyle(foreground: RGB(hex: 0xA0A0B8), background: RGB(hex: 0x2A2A40))
    static let barAlert = TextStyle(foreground: RGB(hex: 0xFFD060), background: RGB(hex: 0x2A2A40), bold: true)

    private func header(_ columns: Int) -> ScreenRow {
        var left: [StyledText] = []
        var right = StyledText()
        if current < views.count {
            let info = channels[current]
            left.append(StyledText(" #" + info.name, Self.barBold))
            if views.count > 1 { left.append(StyledText(" (\(current + 1)/\(views.count))", Self.barDim)) }
            let room = info.room.describe()
            if !room.isEmpty { left.append(StyledText("  " + room, Self.bar)) }
            right.append(info.rate.oneDecimal + " msgs/s  ", Self.bar)
        } else {
            left.append(StyledText(" chatcap watch", Self.barBold))
        }
        right.append(status.label + " ", status.isFinal ? Self.barAlert : Self.bar)
        return Self.bar(left, right, columns)
    }

    private func footer(_ columns: Int) -> ScreenRow {
        var left = StyledText()
        var right = StyledText()
        if let prompt {
            left.append(" /", Self.barBold)
            left.append(prompt, Self.bar)
            left.append(" ", TextStyle(reverse: true))
            right.append("Enter apply · Esc clear ", Self.barDim)
            return Self.bar([left], right, columns)
        }
        var keys = [" q quit", " · k/j PgUp/PgDn scroll", " · G live", " · / filter"]
        if views.count > 1 { keys.append(" · Tab channel") }
        if let filter = context.formatter.filter { right.append("filter: " + filter.text + "  ", Self.barBold) }
        if problemCount > 0 { right.append("\(problemCount) input problems  ", Self.barAlert) }
        if current < views.count, !views[current].isLive {
            right.append("PAUSED · \(views[current].newBelow) new  ", Self.barAlert)
        } else {
            right.append("LIVE  ", Self.bar)
        }
        if status.isFinal {
            right.append(status == .replayEnded ? "replay ended — q quits " : "feed ended — q quits ", Self.barAlert)
        }
        return Self.bar(keys.map { StyledText($0, Self.barDim) }, right, columns)
    }

    /// The left part's segments that fit, spaces, then `right`, on a bar of exactly `columns`.
    ///
    /// Whole segments are dropped from the end of the left part (never cut mid-word), and at least
    /// ``barGap`` spaces keep the two parts apart; only a first segment that does not fit on its own
    /// is cut, and a right part wider than the bar is cut at its end.
    static func bar(_ left: [StyledText], _ right: StyledText, _ columns: Int) -> ScreenRow {
        let room = columns - right.width - barGap
        var shown = StyledText()
        for (i, segment) in left.enumerated() {
            if shown.width + segment.width <= room {
                shown.append(segment)
            } else {
                if i == 0 && room > 0 { shown = segment.prefix(columns: room) }
                break
            }
        }
        var line = shown
        line.append(String(repeating: " ", count: max(0, columns - shown.width - right.width)), bar)
        line.append(right)
        return line.truncated(width: columns)
    }

    /// The fewest spaces between a bar's left and right parts.
    static let barGap = 2

    // MARK: Keys

    private func handle(_ key: Key) {
        dirty = true
        if let text = prompt {
            switch key {
            case .character(let c): prompt = text + String(Character(c))
            case .backspace: prompt = String(text.dropLast())
            case .control("u"): prompt = ""
            case .enter:
                prompt = nil
                setFilter(WatchFilter(text))
            case .escape:
                prompt = nil
                setFilter(nil)
            case .control("c"): quit = true
            default: break
            }
            return
        }
        let view = current < views.count ? views[current] : nil
        switch key {
        case .character("q"), .character("Q"), .control("c"), .control("d"): quit = true
        case .character("k"), .up:
            view?.lineUp()
            settle(view)
        case .character("j"), .down:
            view?.lineDown(with: context)
            settle(view)
        case .pageUp, .character("b"), .control("b"):
            view?.pageUp()
            settle(view)
        case .pageDown, .character(" "), .control("f"):
            view?.pageDown(height: messageHeight, with: context)
            settle(view)
        case .character("G"), .end: view?.follow()
        case .character("g"), .home:
            view?.top(height: messageHeight, with: context)
            settle(view)
        case .character("/"): prompt = ""
        case .tab: if !views.isEmpty { current = (current + 1) % views.count }
        case .backTab: if !views.isEmpty { current = (current + views.count - 1) % views.count }
        case .escape: if context.formatter.filter != nil { setFilter(nil) }
        case .control("l"): screen.invalidate()
        default: break
        }
    }

    /// Lays the view out again after a scroll step, so that the next key scrolls from there even
    /// before a frame is drawn.
    private func settle(_ view: ChannelView?) {
        _ = view?.compose(height: messageHeight, width: size.columns, with: context)
    }

    private func setFilter(_ filter: WatchFilter?) {
        guard filter != context.formatter.filter else { return }
        context.formatter.filter = filter
        for v in views {
            v.relayout()
            v.follow()
        }
    }
}

@available(*, unavailable)
extension WatchScreen: Sendable {}
