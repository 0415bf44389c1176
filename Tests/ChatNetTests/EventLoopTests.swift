import ChatNet
import ChatPosix
import Glibc
import Synchronization
import Testing
import TwitchSession

@Suite(.timeLimit(.minutes(20))) struct EventLoopTests {
    @Test("a registered socket is reported readable once the peer writes, with its descriptor")
    func readable() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let loop = try EventLoop()
        try loop.register(pair.connection.fileDescriptor, interest: .readable)
        var ready: [(Int32, EventLoop.Readiness)] = []
        #expect(try loop.wait(timeoutMs: 0) { ready.append(($0, $1)) } == EventLoop.Wakeup(readyCount: 0, woken: false))
        pair.peerWrite("x")
        let wakeup = try loop.wait(timeoutMs: 1_000) { ready.append(($0, $1)) }
        #expect(wakeup.readyCount == 1)
        #expect(ready.count == 1 && ready[0].0 == pair.connection.fileDescriptor && ready[0].1.contains(.readable))
    }

    @Test("write interest reports writable; modify and remove change what is reported")
    func writableModifyRemove() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let loop = try EventLoop()
        let fd = pair.connection.fileDescriptor
        try loop.register(fd, interest: [.readable, .writable])
        var readiness: EventLoop.Readiness = []
        try loop.wait(timeoutMs: 1_000) { readiness.formUnion($1) }
        #expect(readiness == .writable)
        try loop.modify(fd, interest: .readable)
        #expect(try loop.wait(timeoutMs: 0) { _, _ in }.readyCount == 0)
        pair.peerWrite("x")
        try loop.remove(fd)
        #expect(try loop.wait(timeoutMs: 0) { _, _ in }.readyCount == 0)
        #expect(throws: SocketError.self) { try loop.remove(fd) }
    }

    @Test("the peer hanging up is reported")
    func hangup() throws {
        let pair = try SocketPairFixture()
        let loop = try EventLoop()
        try loop.register(pair.connection.fileDescriptor, interest: .readable)
        pair.closePeer()
        var readiness: EventLoop.Readiness = []
        try loop.wait(timeoutMs: 1_000) { readiness.formUnion($1) }
        #expect(readiness.contains(.hangup))
        #expect(try socketRead(pair.connection).0 == .endOfStream)
    }

    @Test("a wait with nothing ready ends after its timeout")
    func timeout() throws {
        let loop = try EventLoop()
        let start = Moment.now().monotonicMs
        let wakeup = try loop.wait(timeoutMs: 50) { _, _ in Issue.record("nothing is registered") }
        #expect(wakeup == EventLoop.Wakeup(readyCount: 0, woken: false))
        #expect(Moment.now().monotonicMs - start >= 45)
    }

    @Test("the waker ends a long wait from another thread, and is reset afterwards")
    func wakeFromAnotherThread() throws {
        let loop = try EventLoop()
        let waker = loop.waker
        let thread = EventLoopTestThread {
            usleep(50_000)
            waker.wake()
        }
        let start = Moment.now().monotonicMs
        thread.start()
        let wakeup = try loop.wait(timeoutMs: 10_000) { _, _ in }
        #expect(wakeup.woken)
        #expect(Moment.now().monotonicMs - start < 5_000)
        thread.join()
        #expect(try loop.wait(timeoutMs: 0) { _, _ in } == EventLoop.Wakeup(readyCount: 0, woken: false))
    }
}

/// A bare POSIX thread for the waker test (no Foundation needed).
final class EventLoopTestThread: @unchecked Sendable {
    // Only touched by the creating thread (start/join); the body is immutable.
    private var handle = pthread_t()
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func start() {
        let box = Unmanaged.passRetained(self)
        pthread_create(
            &handle, nil,
            { raw in
                let thread = Unmanaged<EventLoopTestThread>.fromOpaque(raw!).takeRetainedValue()
                thread.body()
                return nil
            }, box.toOpaque())
    }

    func join() { pthread_join(handle, nil) }
}
