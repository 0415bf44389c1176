/// What ``BackfillCoordinator`` needs of a fetcher: requests handed over, answers taken back on the
/// ingest thread's next turn. ``BackfillFetcher`` asks the service over HTTP on worker threads; a unit
/// test answers by hand, at the moments it chooses.
protocol BackfillFetching: AnyObject {
    /// Queues a request; never blocks.
    func request(_ request: BackfillFetcher.Request)
    /// The answers that came since the last call, in order.
    func results() -> [BackfillFetcher.Result]
}

extension BackfillFetcher: BackfillFetching {}
