import Foundation
import Glibc

/// A directory of many small chat logs, for the tests that merge more inputs than there are file
/// descriptors (issue #12 item 5).
///
/// Every line is a PRIVMSG with a distinct `tmi-sent-ts` and a unique text (`m<file>-<line>`), so the
/// merged order is exactly the lines sorted by time (``lines``).
public struct ManyInputFiles: Sendable {
    /// How the files lie in the directory and how their times overlap.
    public enum Layout: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Capture's layout with hourly rotation: `DIR/ch<c>/<YYYY-MM-DD>T<HH>.log` for 6 channels, one
        /// hour per file (the files of `ch5` gzip-compressed as `.log.gz`).
        case channels
        /// `DIR/part-<n>.irc`, names in no time order; each file's lines overlap those of the next few.
        case flat
        /// `DIR/x<n>.irc`, every file spanning the whole time range: all files are in the merge at once.
        case overlapping

        public var description: String { rawValue }
    }

    /// One line of the set.
    public struct Line: Sendable, Equatable {
        public var milliseconds: Int64
        public var channel: String
        public var text: String
        /// The line as stored, without its CR LF.
        public var raw: String
    }

    public static let channelCount = 12
    /// 2025-01-01T00:00:00Z.
    public static let baseMilliseconds: Int64 = 1_735_689_600_000

    /// The directory to pass as the input argument.
    public let directory: String
    public let layout: Layout
    public let fileCount: Int
    /// Every line, in merged (time) order.
    public let lines: [Line]

    /// The lines of `#channel`, in order.
    public func lines(of channel: String) -> [Line] { lines.filter { $0.channel == channel } }

    /// Writes `files` files of `linesPerFile` lines each under `root/<layout>`.
    public init(in root: String, layout: Layout, files: Int = 10_000, linesPerFile: Int = 3) throws {
        precondition(files > 0 && linesPerFile > 0 && linesPerFile <= 6)
        directory = root + "/" + layout.rawValue
        self.layout = layout
        fileCount = files
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var all: [Line] = []
        all.reserveCapacity(files * linesPerFile)
        if layout == .channels {
            for c in 0..<Self.channelCount {
                try FileManager.default.createDirectory(
                    atPath: directory + "/ch\(c)", withIntermediateDirectories: true)
            }
        }
        for n in 0..<files {
            let name: String
            let channel: Int
            var times: [Int64] = []
            switch layout {
            case .channels:
                channel = n % Self.channelCount
                let hour = Self.baseMilliseconds + Int64(n / Self.channelCount) * 3_600_000
                name = "ch\(channel)/\(Self.dateHour(hour)).log"
                for k in 0..<linesPerFile { times.append(hour + Int64(channel) * 1_000 + Int64(k) * 600_000) }
            case .flat:
                let slot = (n * 7_919) % files
                channel = slot % Self.channelCount
                name = "part-\(Self.padded(n)).irc"
                for k in 0..<linesPerFile {
                    times.append(Self.baseMilliseconds + Int64(slot) * 10_000 + Int64(k) * 15_001)
                }
            case .overlapping:
                let slot = (n * 7_919) % files
                channel = slot % Self.channelCount
                name = "x\(Self.padded(n)).irc"
                for k in 0..<linesPerFile {
                    times.append(Self.baseMilliseconds + (Int64(k) * Int64(files) + Int64(slot)) * 10)
                }
            }
            var text = ""
            for (k, ms) in times.enumerated() {
                let raw = "@tmi-sent-ts=\(ms) :u\(n)!u\(n)@u\(n).tmi.twitch.tv PRIVMSG #ch\(channel) :m\(n)-\(k)"
                text += raw + "\r\n"
                all.append(Line(milliseconds: ms, channel: "ch\(channel)", text: "m\(n)-\(k)", raw: raw))
            }
            try Self.write(text, to: directory + "/" + name)
        }
        if layout == .channels {
            let result = try InputShell.run("gzip " + InputShell.quote(directory + "/ch5") + "/*.log")
            guard result.status == 0 else { throw ManyInputFilesError(description: "gzip: \(result.errors)") }
        }
        all.sort { $0.milliseconds < $1.milliseconds }
        lines = all
    }

    private static func padded(_ n: Int, _ width: Int = 5) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// `YYYY-MM-DDTHH` of a UTC time (capture's hourly file name).
    private static func dateHour(_ milliseconds: Int64) -> String {
        let hours = milliseconds / 3_600_000
        // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
        let z = hours / 24 + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return "\(year)-\(padded(Int(month), 2))-\(padded(Int(day), 2))T\(padded(Int(hours % 24), 2))"
    }

    /// Writes `text` to a new file at `path` with plain `open`/`write` (quicker than Foundation for
    /// thousands of small files).
    private static func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ManyInputFilesError(description: "\(path): open: errno \(errno)") }
        defer { close(fd) }
        var bytes = Array(text.utf8)
        let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw ManyInputFilesError(description: "\(path): write: errno \(errno)") }
    }
}

public struct ManyInputFilesError: Error, CustomStringConvertible {
    public var description: String
}
