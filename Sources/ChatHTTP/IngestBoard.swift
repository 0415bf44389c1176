import Synchronization

/// The ingest snapshot the HTTP threads read: written by the ingest thread at each publication
/// (``publish(_:)``), copied under a lock taken only then and once per request of `GET /metrics` and
/// `GET /healthz` (``install(in:)``).
public final class IngestBoard: Sendable {
    private let snapshot: Mutex<IngestSnapshot>

    public init(_ snapshot: IngestSnapshot) { self.snapshot = Mutex(snapshot) }

    /// The last snapshot published.
    public var current: IngestSnapshot { snapshot.withLock { $0 } }

    /// Makes `snapshot` the one requests answer from.
    ///
    /// - Complexity: O(1) under the lock (the arrays are shared, not copied).
    public func publish(_ snapshot: IngestSnapshot) { self.snapshot.withLock { $0 = snapshot } }

    /// From now on `/healthz` says the run is stopping (503), whatever comes next.
    public func stopping() {
        snapshot.withLock {
            $0.healthy = false
            $0.health = "stopping"
        }
    }

    /// `GET /metrics` (the Prometheus text) and `GET /healthz` (200 or 503 and the reason).
    public func install(in router: inout HTTPRouter) {
        router.get("/metrics") { _, _ in
            HTTPResponse(status: 200, contentType: PrometheusText.contentType, body: self.current.exposition)
        }
        router.get("/healthz") { _, _ in
            let current = self.current
            return HTTPResponse(
                status: current.healthy ? 200 : 503, contentType: "text/plain; charset=utf-8",
                body: Array((current.health + "\n").utf8))
        }
    }
}
