public import ChatLogStore
public import IRCWire

/// `capture --opt-out FILE`: the lines capture does not write, nor keep for its HTTP answers — those of
/// a channel on the list (by login or `room-id`) and those about a user on it (``OptOutFilter``: their
/// messages and notices, their timeouts and bans, deletions naming them) — counted; the file read again
/// on SIGHUP, a bad file keeping the list in force.
///
/// Confined to the ingest thread (the per-line handler and the loop's tick).
public final class CaptureOptOut {
    /// The file, as given.
    public let path: String
    /// The list in force.
    public private(set) var list: OptOutList
    private var filter: OptOutFilter
    /// Lines not written because of the list, since the start of the run.
    public private(set) var withheldLines = 0

    public init(path: String, list: OptOutList) {
        self.path = path
        self.list = list
        filter = OptOutFilter(list)
    }

    /// Whether `message` (over `bytes`) is withheld; a withheld line is counted.
    ///
    /// - Complexity: O(1) with an empty list; else O(channel + id + login length).
    /// - Allocations: none.
    @inline(__always)
    public func withholds(_ bytes: Span<UInt8>, _ message: TwitchMessage) -> Bool {
        guard !filter.isEmpty, filter.withholds(StoredLine(message: message, received: nil), in: bytes) else {
            return false
        }
        withheldLines += 1
        return true
    }

    /// SIGHUP: the file again, put in force; a file that cannot be read or parsed keeps the list in force.
    ///
    /// - Returns: what to say, and the list now in force when it changed (`nil` when it was kept).
    public func reload() -> (text: String, list: OptOutList?) {
        let (list, text) = LogsRun.reread(path)
        if let list {
            self.list = list
            filter = OptOutFilter(list)
        }
        return (text, list)
    }
}

// Not Sendable: confined to the ingest thread (see the class).
@available(*, unavailable)
extension CaptureOptOut: Sendable {}
