import ChatTestSupport
import IRCWire

#if canImport(Glibc)
import Glibc
#endif

struct BenchOptions {
    var file = ""
    var floorTool: String? = nil
    var passes = 5
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
        print("input: \(options.file): \(lineCount) lines, \(data.count / 1_000_000) MB, \(data.count / max(lineCount, 1)) bytes/line; best of \(options.passes) passes")
        floorNsPerLine = options.floorTool.flatMap(measureFloor)
        if let floor = floorNsPerLine { print("\(pad("memchr floor (C)", 30)) \(pad(fmt(floor, 1), 8, left: true)) ns/line") }

        report("frame", best { frameAll { $0.count } })
        report("frame + parse", best {
            frameAll { bytes in (try? ParsedLine.parse(bytes)).map { Int($0.paramCount) } ?? 0 }
        })
        report("frame + parse + tag split", best {
            frameAll { bytes in
                guard let p = try? ParsedLine.parse(bytes) else { return 0 }
                var cursor = p.tags
                var n = 0
                while let t = cursor.next(in: bytes) { n &+= t.value.raw.count }
                return n
            }
        })
        report("frame + parse + Twitch tags", best {
            frameAll { bytes in (try? TwitchMessage.parse(bytes))?.tags.count ?? 0 }
        })
        report("frame + parse + Twitch view", best {
            frameAll { bytes in
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
        })
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
            bestSeconds = min(bestSeconds, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
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
