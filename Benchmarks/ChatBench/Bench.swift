import ChatFormat
import ChatPosix
import ChatStore
import ChatTestSupport
import IRCWire

#if canImport(Glibc)
    import Glibc
#endif

struct BenchOptions {
    var file = ""
    var floorTool: String? = nil
    var passes = 5
    /// Run only the measurements whose section is named so (`parser`, `store`, `budget`).
    var only: String? = nil
    /// Run one parser row once and print nothing else (`read`, `copy`, `frame`, `parse`, `split`,
    /// `cursor`, `twitch`, `view`): for counting its instructions under valgrind (`Benchmarks/parser_instructions.sh`).
    var step: String? = nil
}

/// The measurements. Nonisolated on purpose: closures on the measured path must not carry actor checks.
struct Bench {
    let options: BenchOptions
    let data: [UInt8]
    let lineCount: Int
    var floorNsPerLine: Double? = nil

    init(options: BenchOptions) throws {
        self.options = options
        data = try FileBytes.read(options.file)
        lineCount = data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    mutating func run() {
        if let step = options.step {
            runStep(step)
            return
        }
        print(
            "input: \(options.file): \(lineCount) lines, \(data.count / 1_000_000) MB, \(data.count / max(lineCount, 1)) bytes/line; best of \(options.passes) passes"
        )
        floorNsPerLine = options.floorTool.flatMap(measureFloor)
        if options.only == "store" {
            runStore()
            return
        }
        if options.only == "budget" {
            runBudget()
            return
        }
        if let floor = floorNsPerLine {
            print("\(pad("memchr floor (C)", 30)) \(pad(fmt(floor, 1), 8, left: true)) ns/line")
        }

        report("frame", best { frameAll(Self.frame) })
        report("frame + parse", best { frameAll(Self.parse) })
        report("frame + parse + tag split", best { frameAll(Self.split) })
        report("frame + parse, tag cursor", best { frameAll(Self.cursor) })
        report("frame + parse + Twitch tags", best { frameAll(Self.twitch) })
        defer {
            if options.only != "parser" {
                runStore()
                runBudget()
            }
        }
        report("frame + parse + Twitch view", best { frameAll(Self.view) })
    }

    /// One parser row, once, silently (the input is read and its lines counted whatever the step, so
    /// `read` is the baseline to subtract).
    func runStep(_ step: String) {
        let body: ((Span<UInt8>) -> Int)? =
            switch step {
            case "frame": Self.frame
            case "parse": Self.parse
            case "split": Self.split
            case "cursor": Self.cursor
            case "twitch": Self.twitch
            case "view": Self.view
            default: nil
            }
        if step == "copy" {
            if copyAll() == 42 { print("") }  // keep the work observable
            return
        }
        guard let body else {
            if step != "read" {
                print("unknown step \(step): read, copy, frame, parse, split, cursor, twitch or view")
                exit(64)
            }
            return
        }
        if frameAll(body) == 42 { print("") }  // keep the work observable
    }

    static func frame(_ bytes: Span<UInt8>) -> Int { bytes.count }

    static func parse(_ bytes: Span<UInt8>) -> Int {
        (try? ParsedLine.parse(bytes)).map { Int($0.paramCount) } ?? 0
    }

    /// Spans plus every tag split (key and raw value), as tmi-rs's parser gives them: in the parse's
    /// own pass over the tag section (``ParsedLine/parse(_:eachTag:)``).
    static func split(_ bytes: Span<UInt8>) -> Int {
        var n = 0
        guard (try? ParsedLine.parse(bytes, eachTag: { n &+= $0.value.raw.count })) != nil else { return 0 }
        return n
    }

    /// The same spans and tags in two passes: ``ParsedLine/parse(_:)``, then a ``TagCursor`` walk.
    static func cursor(_ bytes: Span<UInt8>) -> Int {
        guard let p = try? ParsedLine.parse(bytes) else { return 0 }
        var cursor = p.tags
        var n = 0
        while let t = cursor.next(in: bytes) { n &+= t.value.raw.count }
        return n
    }

    static func twitch(_ bytes: Span<UInt8>) -> Int { (try? TwitchMessage.parse(bytes))?.tags.count ?? 0 }

    static func view(_ bytes: Span<UInt8>) -> Int {
        guard let m = try? TwitchMessage.parse(bytes) else { return 0 }
        var sum = m.tags.count
        if let p = m.privmsg(in: bytes) {
            sum &+= p.text.count &+ p.login.count
            sum &+= Int(m.sentTimestamp(in: bytes) ?? 0) & 1
            var badges = m.badges
            while let b = badges.next(in: bytes) { sum &+= b.version.count }
            var emotes = m.emotes
            while let e = emotes.next(in: bytes) { sum &+= e.start }
        }
        return sum
    }

    /// The ring and view model: ingest (parse + append + coalesced publish), forced publishes for two
    /// window sizes, window resolves, and the memory of full rings.
    func runStore() {
        print("")
        print("store: ChatStore with 2,500 entries per channel")
        // Steady state: one pass fills the rings (warm-up), the measured passes run on full rings.
        let store = ChatStore()
        var time: Int64 = 0
        func ingestAll() -> Int {
            var n = 0
            return frameAll { bytes in
                time &+= 1
                guard let p = try? store.ingest(bytes, receivedAt: Timestamp(milliseconds: time)) else { return 0 }
                n &+= 1
                if n & 63 == 0 { store.publish(now: time) }
                return Int(p.seq & 1)
            }
        }
        _ = ingestAll()
        let ingest = best { ingestAll() }
        report("frame+parse+append+publish", ingest)

        // Publishing is O(1): the same cost for N = 150 and N = 2,500.
        for size in [150, 2_500] {
            let s = ChatStore(windowSize: size)
            _ = frameAll { bytes in (try? s.ingest(bytes, receivedAt: .epoch)).map { Int($0.seq & 1) } ?? 0 }
            let log = (0..<s.channelCount).map { s.log(at: $0)! }.max { $0.ring.count < $1.ring.count }!
            let mailbox = s.viewModel.observe(channel: log.index)
            let publishes = 1_000_000
            let seconds = best {
                for k in 0..<publishes { s.viewModel.publish(log, now: Int64(k), force: true) }
                return mailbox.take()?.coalesced ?? 0
            }
            print(
                "\(pad("publish window, N = \(size)", 34)) \(pad(fmt(seconds * 1e9 / Double(publishes), 1), 8, left: true)) ns/publish"
            )
        }

        // Resolving a 150-entry window through the ring with a reader.
        let log = (0..<store.channelCount).map { store.log(at: $0)! }.max { $0.ring.count < $1.ring.count }!
        let reader = store.readers.makeReader()!
        let window = store.viewModel.window(of: log)
        let resolves = 20_000
        let resolveSeconds = best {
            var sum = 0
            for _ in 0..<resolves {
                log.ring.withEntries(in: window.range, reader: reader) { info, bytes in
                    sum &+= bytes.count &+ Int(info.seq & 1)
                }
            }
            return sum
        }
        let perWindow = resolveSeconds * 1e9 / Double(resolves)
        print(
            "\(pad("resolve window, N = 150", 34)) \(pad(fmt(perWindow, 1), 8, left: true)) ns/window  (\(fmt(perWindow / 150, 2)) ns/entry)"
        )

        // Memory of the full rings against the raw bytes they hold.
        var raw = 0
        var reserved = 0
        var metadata = 0
        for c in 0..<store.channelCount {
            let ring = store.log(at: c)!.ring
            guard ring.isFull else { continue }
            ring.withEntries(in: ring.liveRange, reader: reader) { _, bytes in raw += bytes.count }
            reserved += ring.byteCapacity
            metadata += ring.capacity * EntryRing.metadataBytesPerEntry
        }
        if raw > 0 {
            print(
                "memory of full rings: raw \(raw / 1024) KiB, byte storage \(reserved / 1024) KiB (\(fmt(Double(reserved) / Double(raw), 3))x raw), + metadata \(metadata / 1024) KiB (\(EntryRing.metadataBytesPerEntry) B/entry) = \(fmt(Double(reserved + metadata) / Double(raw), 3))x raw"
            )
        }
    }

    /// What one core can do per line with the replay's own parts, in memory (no reads, no merge, no
    /// `write(2)`: a lower bound on replay's cost). Each row adds one step to the row above, on a store
    /// made as `replay` makes it (no interning, mapped storage) with full rings; the output rows copy
    /// into a buffer that is emptied every 1 MiB. The ceilings put the rows against issue #16's
    /// targets: one core at the row's cost, and two cores splitting it with no overhead at all.
    func runBudget() {
        print("")
        print("per-line budget: replay's steps in memory, one thread (lower bound on replay's cost)")
        let store = ChatStore(internsSenders: false, pages: .system)
        var out = [UInt8](repeating: 0, count: 1 << 20)
        var used = 0
        var writer = JSONWriter()
        var lines = 0
        // As replay's lane and ingest do for every line, whatever the format: parse, read the line's
        // time (the merge order, and the receive time kept with the entry), append, tick the view model.
        func ingest(_ bytes: Span<UInt8>, then body: (Span<UInt8>, TwitchMessage, Timestamp?) -> Int) -> Int {
            lines &+= 1
            guard let message = try? TwitchMessage.parse(bytes) else { return 0 }
            let time = LineTime(of: message, in: bytes).timestamp
            guard let p = try? store.append(bytes, message: message, receivedAt: time ?? .epoch) else {
                return 0
            }
            if lines & 15 == 0 { store.publish(now: Int64(lines)) }
            return Int(p.seq & 1) &+ body(bytes, message, time)
        }
        func emit(_ span: Span<UInt8>) -> Int {
            if used + span.count + 1 > out.count { used = 0 }
            let at = used
            // One copy, as the replay's output buffer makes.
            out.withUnsafeMutableBytes { buffer in
                span.withUnsafeBytes {
                    unsafe buffer.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
                }
                buffer[at &+ span.count] = 0x0A
            }
            used &+= span.count &+ 1
            return used & 1
        }
        _ = frameAll { ingest($0) { _, _, _ in 0 } }  // fill the rings
        let append = best { frameAll { ingest($0) { _, _, _ in 0 } } }
        report("parse + time + append", append)
        let raw = best { frameAll { ingest($0) { bytes, _, _ in emit(bytes) } } }
        report("parse + time + append + raw", raw)
        let json = best {
            frameAll {
                ingest($0) { bytes, message, time in
                    writer.reset()
                    let context = LineContext(timestamp: time)
                    TypedJSONEncoder.encode(bytes, message, context, options: JSONOptions(), into: &writer)
                    return writer.withBytes { emit($0) }
                }
            }
        }
        report("parse + time + append + JSON", json)
        let n = Double(lineCount)
        func ceiling(_ name: String, _ seconds: Double, target: Double) {
            let one = n / seconds
            print(
                "\(pad(name, 30)) one core \(pad(fmt(one / 1e6, 2), 5, left: true)) M lines/s, two cores at best \(pad(fmt(2 * one / 1e6, 2), 5, left: true)) M lines/s; target \(fmt(target / 1e6, 1)) M"
            )
        }
        ceiling("ceiling, --format raw", raw, target: 2e6)
        ceiling("ceiling, --format json", json, target: 1e6)
    }

    /// Copies the whole input into a framer's buffer, a buffer at a time, and frames nothing: the
    /// copy ``frameAll(_:)`` makes (`feed`), which a real run leaves to `read(2)` (the kernel).
    func copyAll() -> Int {
        var framer = LineFramer()
        var taken = 0
        var sum = 0
        while taken < data.count {
            taken += unsafe framer.fill { free in
                let n = min(free.count, data.count - taken)
                unsafe data.withUnsafeBytes {
                    unsafe free.baseAddress!.copyMemory(from: $0.baseAddress! + taken, byteCount: n)
                }
                return n
            }
            sum &+= framer.reset()
        }
        return sum
    }

    /// Runs the framer over the whole input; `body` sees each line.
    func frameAll(_ body: (Span<UInt8>) -> Int) -> Int {
        var framer = LineFramer()
        var sum = 0
        framer.feed(data.span) { event, framer in
            if case .line(let line) = event { sum &+= framer.withBytes(of: line, body) }
        }
        return sum
    }

    /// Best wall time of the passes of `body`, in seconds.
    func best(_ body: () -> Int) -> Double {
        var bestSeconds = Double.infinity
        let clock = ContinuousClock()
        for _ in 0..<options.passes {
            var result = 0
            let elapsed = clock.measure { result = body() }
            bestSeconds = min(
                bestSeconds, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            if result == 42 { print("") }  // keep the work observable
        }
        return bestSeconds
    }

    func report(_ name: String, _ seconds: Double) {
        let nsPerLine = seconds * 1e9 / Double(lineCount)
        var line = "\(pad(name, 30)) \(pad(fmt(nsPerLine, 1), 8, left: true)) ns/line"
        line += "  \(pad(fmt(Double(lineCount) / seconds / 1e6, 2), 6, left: true)) M lines/s"
        line += "  \(pad(fmt(Double(data.count) / seconds / 1e6, 0), 6, left: true)) MB/s"
        if let floor = floorNsPerLine { line += "  \(pad(fmt(nsPerLine / floor, 1), 5, left: true))x memchr floor" }
        print(line)
    }

    /// The floor: our C program's memchr line count over the same file, in the same run.
    func measureFloor(_ tool: String) -> Double? {
        guard let pipe = popen("\(tool) '\(options.file)' \(options.passes)", "r") else { return nil }
        defer { pclose(pipe) }
        var output: [UInt8] = []
        while true {
            let c = fgetc(pipe)
            if c == EOF { break }
            output.append(UInt8(truncatingIfNeeded: c))
        }
        let fields = String(decoding: output, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let lines = Double(fields[0]), let seconds = Double(fields[1]), lines > 0 else {
            return nil
        }
        return seconds * 1e9 / lines
    }
}

func fmt(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let s = "\((value * scale).rounded() / scale)"
    return decimals == 0 && s.hasSuffix(".0") ? String(s.dropLast(2)) : s
}

func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    guard s.count < width else { return s }
    let fill = String(repeating: " ", count: width - s.count)
    return left ? fill + s : s + fill
}
