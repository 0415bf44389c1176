public import ChatInput
import ChatPosix
import Foundation
import Synchronization
import Testing

/// A fresh directory under the system's temporary directory, removed when the value goes away.
public final class InputTempDirectory: @unchecked Sendable {  // immutable after init
    public let path: String

    public init(_ label: String = #function) throws {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "chatcap-\(safe)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A fresh directory for fixtures kept in a `static` (made once for a suite's many tests), removed
    /// when the process exits: Swift never deinitialises a static, so ``deinit`` would never remove it
    /// (ParseAheadCLITests left one directory in /tmp every run; `Scripts/run_tests.sh` now fails a
    /// run whose tests leave anything in their temporary directory).
    public static func removedAtExit(_ label: String = #function) throws -> InputTempDirectory {
        let dir = try InputTempDirectory(label)
        atExit.withLock { paths in
            if paths.isEmpty { atexit { InputTempDirectory.removeAtExit() } }
            paths.append(dir.path)
        }
        return dir
    }

    /// The directories ``removedAtExit(_:)`` made, for the `atexit` handler it registers once.
    private static let atExit = Mutex<[String]>([])

    private static func removeAtExit() {
        for path in atExit.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Removes the directory now with `rm -rf` (much quicker than Foundation for thousands of files);
    /// the value must not be used afterwards.
    public func removeQuickly() {
        _ = try? InputShell.run("rm -rf " + InputShell.quote(path))
    }

    /// `path/relative`, with its parent directories created.
    public func file(_ relative: String) throws -> String {
        let full = path + "/" + relative
        let parent = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        return full
    }

    /// Writes `bytes` to `relative` and returns the full path.
    @discardableResult
    public func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let full = try file(relative)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }
}

/// Runs shell commands of the real tools (`gzip`, `zcat`) for the tests.
public enum InputShell: Sendable {
    public struct Result: Sendable {
        public var status: Int32
        public var output: [UInt8]
        public var errors: String
    }

    /// A command that exited with a status other than 0.
    public struct Failure: Error, CustomStringConvertible {
        public var command: String
        public var result: Result
        public var description: String { "\(command) exited with \(result.status): \(result.errors)" }
    }

    /// Runs `command` with `/bin/sh -c`, feeding nothing on standard input.
    public static func run(_ command: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The tools' error output is short; reading standard output first cannot block on it.
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: [UInt8](output), errors: String(decoding: errors, as: UTF8.self))
    }

    /// `'text'` quoted for `sh`.
    public static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A byte source over an array, handing out at most `step` bytes per read: the compressed side of
/// `GzipSource` in tests, drip-fed (ChatInputTests, and ChatGzipTests reading back what they wrote).
public final class InputArraySource: ByteSource {
    public let name: String
    let bytes: [UInt8]
    let step: Int
    var position = 0

    public init(_ bytes: [UInt8], name: String = "array", step: Int = .max) {
        self.bytes = bytes
        self.name = name
        self.step = step
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = min(buffer.count, step, bytes.count - position)
        for i in 0..<n { buffer[i] = bytes[position + i] }
        position += n
        return n
    }
}

@available(*, unavailable)
extension InputArraySource: Sendable {}

/// Reads `source` to its end in reads of at most `chunk` bytes; returns the bytes and the error that
/// ended it, if any. Records an issue if the source gave bytes after its error.
public func drainSource(_ source: inout some ByteSource, chunk: Int = 64 * 1024) -> (bytes: [UInt8], error: InputError?)
{
    let read = readToEnd(&source, chunk: chunk)
    #expect(read.endedAfterError, "a source must end after an error")
    return (read.bytes, read.error)
}

/// ``drainSource(_:chunk:)`` without Swift Testing (for `make tsan`'s StressChecks, where an `#expect`
/// outside a test records nothing): the bytes, the error that ended them, and whether the source
/// was at its end after that error (true when there was none). O(bytes) time; the bytes are copied once.
public func readToEnd(_ source: inout some ByteSource, chunk: Int = 64 * 1024) -> (
    bytes: [UInt8], error: InputError?, endedAfterError: Bool
) {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
        var caught: InputError? = nil
        let n = buffer.withUnsafeMutableBytes { raw -> Int in
            do throws(InputError) { return try source.read(into: raw) } catch {
                caught = error
                return 0
            }
        }
        if let caught {
            // After an error the source is at its end.
            let after = buffer.withUnsafeMutableBytes { raw in try? source.read(into: raw) }
            return (out, caught, after == 0)
        }
        if n == 0 { return (out, nil, true) }
        out += buffer[0..<n]
    }
}

/// `count` chat lines with `time` tags one second apart from `start` (ms), for input tests.
public func sampleChatLines(
    _ count: Int, channel: String = "c", start: Int64 = 1_763_699_201_000, text: String = "hello"
)
    -> [UInt8]
{
    var out: [UInt8] = []
    for i in 0..<count {
        let ms = start + Int64(i) * 1000
        out += Array("@tmi-sent-ts=\(ms);id=\(i) :u\(i)!u@u.tmi.twitch.tv PRIVMSG #\(channel) :\(text) \(i)\r\n".utf8)
    }
    return out
}

/// A small deterministic generator for reproducible random tests: ChatTestSupport's `SplitMix64`.
public struct InputRandom: Sendable {
    private var generator: SplitMix64
    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    public mutating func next() -> UInt64 { generator.next() }
}

/// Runs `body` on a new OS thread (not the test's cooperative pool, which a polling reader may block).
public final class InputBackgroundThread: @unchecked Sendable {  // `done` is signalled once, by the thread
    private let done = DispatchSemaphore(value: 0)

    public init(_ body: @escaping @Sendable () -> Void) {
        let done = self.done
        // A private serial queue is overcommitting: it gets a thread even when others are blocked.
        DispatchQueue(label: "chatcap.test.background").async {
            body()
            done.signal()
        }
    }

    /// Waits until `body` has returned.
    public func join() { done.wait() }
}
