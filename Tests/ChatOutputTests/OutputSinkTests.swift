import ChatOutput
import ChatTestSupport
import Foundation
import Testing

/// `OutputSink` over a real pipe: large writes whatever the descriptor, and nothing held longer than
/// ``OutputSink/maxDelay`` once an idle point looks.
@Suite(.timeLimit(.minutes(20))) struct OutputSinkTests {
    /// Reads a descriptor to its end on a background thread.
    final class Drain: @unchecked Sendable {  // `bytes` is read after `join()`
        private final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
        private let box = Box()
        private let thread: InputBackgroundThread

        init(_ fd: Int32) {
            let box = self.box
            thread = InputBackgroundThread {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let n = read(fd, &buffer, buffer.count)
                    if n <= 0 { break }
                    box.bytes += buffer[0..<n]
                }
                close(fd)
            }
        }

        func join() -> [UInt8] {
            thread.join()
            return box.bytes
        }
    }

    static func line(_ i: Int) -> [UInt8] {
        Array("{\"type\":\"privmsg\",\"channel\":\"pixelharbor\",\"n\":\(i),\"text\":\"hello there, chat\"}\n".utf8)
    }

    @Test("20,000 lines to a pipe take a few dozen writes, not 20,000, and arrive intact")
    func batchesPipes() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let drain = Drain(fds[0])
        let sink = OutputSink(descriptor: fds[1])
        var expected: [UInt8] = []
        for i in 0..<20_000 {
            let bytes = Self.line(i)
            expected += bytes
            try sink.write(bytes)
            try sink.endLine()
        }
        try sink.flush()
        close(fds[1])
        #expect(drain.join() == expected)
        #expect(sink.flushCount <= 10, "\(sink.flushCount) writes for \(expected.count) bytes")
    }

    @Test("a line waits at most maxDelay: flushIfDue writes it once it is due, and says when that is")
    func flushesWhenDue() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let sink = OutputSink(descriptor: fds[1])
        defer { close(fds[1]) }
        #expect(try sink.flushIfDue(now: .now) == nil)  // nothing pending
        let start = ContinuousClock.now
        try sink.write(Self.line(1))
        try sink.endLine()
        #expect(sink.flushCount == 0)
        let due = try #require(try sink.flushIfDue(now: .now))
        #expect(due - start <= OutputSink.maxDelay + .milliseconds(50))
        #expect(sink.flushCount == 0)
        #expect(try sink.flushIfDue(now: due) == nil)
        #expect(sink.flushCount == 1)
        var buffer = [UInt8](repeating: 0, count: 4096)
        #expect(read(fds[0], &buffer, buffer.count) == Self.line(1).count)
        #expect(!sink.hasPendingBytes)
    }

    @Test("endLine writes a buffer that has grown old, even without an idle point")
    func endLineChecksAge() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let sink = OutputSink(descriptor: fds[1])
        defer { close(fds[1]) }
        try sink.write(Self.line(0))
        try sink.endLine()
        usleep(150_000)
        // The clock is read every few lines: within 16 more lines the old buffer goes out.
        for i in 1...16 {
            try sink.write(Self.line(i))
            try sink.endLine()
        }
        #expect(sink.flushCount == 1)
    }

    @Test("a closed pipe is OutputError.closed")
    func closedPipe() throws {
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        defer { close(fds[1]) }
        let sink = OutputSink(descriptor: fds[1])
        try sink.write(Self.line(0))
        #expect(throws: OutputError.closed) { try sink.flush() }
    }
}
