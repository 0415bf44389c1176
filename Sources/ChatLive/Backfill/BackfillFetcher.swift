import ChatCurl
import ChatNet
import ChatPosix

/// Fetches recent messages on a worker thread of its own, so that the ingest thread never waits for
/// HTTP: the loop hands it requests, and each answer comes back through ``results()`` after the
/// loop's waker is woken.
///
/// Up to ``workerCount`` requests at a time, taken in order by as many worker threads (started as
/// requests come; the channels of a reconnect are asked for a few at a time, each request bounded by
/// the source's wait). Requests, results and the stop flag are shared under one ``PosixMonitor``;
/// each worker's ``HTTPClient`` is confined to it.
final class BackfillFetcher: @unchecked Sendable {  // state under `monitor`, the client on the worker
    struct Request: Sendable {
        var id: Int
        var channel: String
    }

    enum Outcome: Sendable {
        case answer(status: Int, body: [UInt8], truncated: Bool)
        case failed(String)
    }

    struct Result: Sendable {
        var id: Int
        var outcome: Outcome
    }

    private let source: RecentMessagesSource
    private let waker: Waker
    private let monitor = PosixMonitor(conditions: 1)
    private static let work = PosixMonitor.Condition(0)
    // Guarded by `monitor`.
    private var queue: [Request] = []
    private var done: [Result] = []
    private var stopping = false
    private var threads: [PosixThread] = []
    private var idle = 0
    /// The most requests in flight at once: 4.
    static let workerCount = 4

    init(source: RecentMessagesSource, waker: Waker) {
        self.source = source
        self.waker = waker
    }

    /// Queues a request; starts the worker the first time.
    func request(_ request: Request) {
        monitor.lock()
        queue.append(request)
        if idle == 0 && threads.count < Self.workerCount { threads.append(PosixThread { [self] in work() }) }
        monitor.signal(Self.work)
        monitor.unlock()
    }

    /// The answers that came since the last call, in order.
    func results() -> [Result] {
        monitor.lock()
        defer { monitor.unlock() }
        let out = done
        done.removeAll()
        return out
    }

    /// Stops the workers once their requests in flight end (at most the source's wait) and joins them.
    func close() {
        monitor.lock()
        stopping = true
        queue.removeAll()
        monitor.broadcast(Self.work)
        let threads = self.threads
        monitor.unlock()
        for thread in threads { thread.join() }
    }

    private func work() {
        var client: HTTPClient? = nil
        var clientError: String? = nil
        do throws(HTTPClient.Failure) {
            client = try HTTPClient(tls: source.tls, maxBodyBytes: source.maxAnswerBytes)
        } catch {
            clientError = error.description
        }
        while true {
            monitor.lock()
            idle += 1
            while queue.isEmpty && !stopping { monitor.wait(Self.work) }
            idle -= 1
            if stopping {
                monitor.unlock()
                return
            }
            let request = queue.removeFirst()
            monitor.unlock()
            let outcome: Outcome
            if let client {
                do throws(HTTPClient.Failure) {
                    let response = try client.get(
                        url: source.url(for: request.channel),
                        headers: ["Accept: application/json", "User-Agent: \(source.userAgent)"],
                        timeoutMs: Int(source.waitMs), connectTimeoutMs: Int(source.waitMs))
                    outcome = .answer(status: response.status, body: response.body, truncated: response.truncated)
                } catch {
                    outcome = .failed(error.description)
                }
            } else {
                outcome = .failed(clientError ?? "libcurl could not start")
            }
            monitor.lock()
            done.append(Result(id: request.id, outcome: outcome))
            monitor.unlock()
            waker.wake()
        }
    }
}
