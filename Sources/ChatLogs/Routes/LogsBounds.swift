public import ChatLogStore
import ChatStore

/// How much one request may ask for: a `from`/`to` range of at most ``maxRangeDays`` days, a `limit`
/// and an `offset` of at most ``maxLimit`` lines. Past them the answer is 400 in the API's error shape
/// (``LogsError/invalidParam(_:)``), before anything is read. rustlog has no such bound; the defaults
/// let through every request its page and the clients written for it make (a day, a month, a year).
public struct LogsBounds: Sendable, Equatable {
    public var maxRangeDays: Int
    public var maxLimit: Int

    public init(maxRangeDays: Int = 366, maxLimit: Int = 1_000_000) {
        precondition(maxRangeDays > 0 && maxLimit > 0, "bounds are positive")
        self.maxRangeDays = maxRangeDays
        self.maxLimit = maxLimit
    }

    /// Throws when `query` asks for more than the bounds allow.
    ///
    /// - Complexity: O(1). - Allocations: the error's text only.
    public func check(_ query: LogsQuery) throws(LogsError) {
        if let range = query.range,
            range.upperBound.milliseconds - range.lowerBound.milliseconds > Int64(maxRangeDays) * 86_400_000
        {
            throw .invalidParam("range longer than \(maxRangeDays) days")
        }
        if let limit = query.limit, limit > maxLimit { throw .invalidParam("limit above \(maxLimit)") }
        if let offset = query.offset, offset > maxLimit { throw .invalidParam("offset above \(maxLimit)") }
    }
}
