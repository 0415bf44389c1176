import ChatPosix

/// One POST whose answer is taken block by block while it arrives: a thread of its own runs the
/// request (libcurl pushes the answer; ``next()`` pulls it) and waits while ``maxQueuedBytes`` are
/// queued and not taken, so an answer of any size holds about that much memory.
///
/// ```
///   server ─▶ request thread ─▶ queue (≤ maxQueuedBytes) ─▶ next() (the caller's thread)
/// ```
///
/// Dropping it (``cancel()``, or `deinit`) aborts the request at its next block and joins the thread.
/// Confined to one thread (the one that calls ``next()``), apart from the request thread it owns.
public final class HTTPStream {
    /// What ``next()`` hands out: a block of a 200 answer, its end, another status with the first
    /// 500 bytes of its answer, or why no answer came.
    public enum Block: Sendable {
        case bytes([UInt8])
        case end
        case refused(status: Int, text: String)
        case failed(HTTPClient.Failure)
    }

    /// What is POSTed where, as ``HTTPClient/post(url:body:headers:user:password:timeoutMs:connectTimeoutMs:)``
    /// takes it.
    public struct Request: Sendable {
        public var url: String
        public var body: [UInt8]
        public var headers: [String]
        public var user: String?
        public var password: String?
        public var timeoutMs: Int
        public var connectTimeoutMs: Int

        public init(
            url: String, body: [UInt8], headers: [String], user: String?, password: String?, timeoutMs: Int,
            connectTimeoutMs: Int
        ) {
            self.url = url
            self.body = body
            self.headers = headers
            self.user = user
            self.password = password
            self.timeoutMs = timeoutMs
            self.connectTimeoutMs = connectTimeoutMs
        }
    }

    /// The most answer bytes queued and not taken (the request waits past it).
    public static let maxQueuedBytes = 1 << 20

    /// The state both threads share, under `monitor`.
    private final class Shared: @unchecked Sendable {  // every field is touched under `monitor` only
        let monitor = PosixMonitor(conditions: 1)
        var queue: [[UInt8]] = []
        var queuedBytes = 0
        var finished: Block?
        var cancelled = false
    }

    private static let changed = PosixMonitor.Condition(0)
    private let shared = Shared()
    private var thread: PosixThread?

    /// Starts `request` on a thread of its own (with a client of its own).
    public init(_ request: Request) {
        let shared = shared
        thread = PosixThread { Self.run(request, shared: shared) }
    }

    deinit { cancel() }

    /// The next block of the answer, waiting for it.
    ///
    /// - Complexity: O(blocks queued) plus the wait (at most ``maxQueuedBytes`` of them: a few dozen of
    ///   libcurl's blocks). - Allocations: none (the block was allocated by the request).
    public func next() -> Block {
        shared.monitor.lock()
        defer { shared.monitor.unlock() }
        while shared.queue.isEmpty && shared.finished == nil { shared.monitor.wait(Self.changed) }
        guard !shared.queue.isEmpty else { return shared.finished ?? .end }
        let block = shared.queue.removeFirst()
        shared.queuedBytes -= block.count
        shared.monitor.broadcast(Self.changed)
        return .bytes(block)
    }

    /// Aborts the request (if it still runs) and waits for its thread to end.
    public func cancel() {
        shared.monitor.lock()
        shared.cancelled = true
        shared.monitor.broadcast(Self.changed)
        shared.monitor.unlock()
        thread?.join()
        thread = nil
    }

    /// The request thread: POSTs, queues the answer's blocks, then says how it ended.
    private static func run(_ request: Request, shared: Shared) {
        var end = Block.end
        do throws(HTTPClient.Failure) {
            var refused: [UInt8] = []
            // SAFETY: `bytes` is libcurl's block, valid for the closure's call; it is copied there.
            let status = try unsafe HTTPClient().post(
                url: request.url, body: request.body, headers: request.headers, user: request.user,
                password: request.password, timeoutMs: request.timeoutMs, connectTimeoutMs: request.connectTimeoutMs
            ) { status, bytes in
                guard status == 200 else {
                    unsafe refused += bytes.prefix(max(0, 500 - refused.count))
                    return true
                }
                return queue(unsafe Array(bytes), in: shared)
            }
            if status != 200 { end = .refused(status: status, text: String(decoding: refused, as: UTF8.self)) }
        } catch {
            end = .failed(error)
        }
        shared.monitor.lock()
        shared.finished = end
        shared.monitor.broadcast(Self.changed)
        shared.monitor.unlock()
    }

    /// Queues `block`, first waiting while the queue is full; `false` once the answer was cancelled.
    private static func queue(_ block: [UInt8], in shared: Shared) -> Bool {
        shared.monitor.lock()
        defer { shared.monitor.unlock() }
        while !shared.cancelled && shared.queuedBytes >= maxQueuedBytes { shared.monitor.wait(changed) }
        guard !shared.cancelled else { return false }
        shared.queue.append(block)
        shared.queuedBytes += block.count
        shared.monitor.broadcast(changed)
        return true
    }
}

@available(*, unavailable)
extension HTTPStream: Sendable {}
