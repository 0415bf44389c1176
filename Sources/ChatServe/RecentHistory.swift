import ChatFormat
import ChatPosix
public import ChatStore
import IRCWire
import Synchronization

/// What the shared timeline has played, per channel, for serve's recent-messages endpoint: the
/// last ``limit`` lines of each channel of the kinds a recent-messages service hands out (PRIVMSG,
/// CLEARCHAT, CLEARMSG, USERNOTICE, NOTICE but the few it leaves out, ROOMSTATE), as sent (times rebased, ids renewed on
/// later passes), with the moment each was played and what moderation did to it.
///
/// The lines live in a ``ChatStore`` of ring capacity ``limit`` (moderation applied in place as
/// CLEARMSG and CLEARCHAT come): a line is copied once into its channel's ring, which is storage the
/// ring allocated while it filled, so a full ring records a line without an allocation. HTTP threads
/// read the rings through the store's reader pins; the channels joined are behind a lock taken at
/// a JOIN and by readers, never per line.
///
/// ``record(_:playedAtMs:)`` and ``join(_:)`` run on the server's loop thread (the store's owner);
/// ``store`` and ``isJoined(_:)`` on any thread.
public final class RecentHistory: Sendable {
    /// The most lines kept per channel.
    public let limit: Int
    /// The rings (see the type's summary for who may do what).
    public let store: ChatStore
    private let joined = Mutex<Set<String>>([])

    /// - Precondition: `limit >= 1`.
    public init(limit: Int) {
        precondition(limit >= 1, "the history keeps at least one line per channel")
        self.limit = limit
        store = ChatStore(capacity: limit, internsSenders: false, pages: .system)
    }

    /// Whether a client joined `channel` (a login) on the shared timeline. Any thread.
    public func isJoined(_ channel: String) -> Bool {
        joined.withLock { $0.contains(channel) }
    }

    /// Records that a client joined `channel` on the shared timeline. Loop thread.
    func join(_ channel: String) {
        _ = joined.withLock { $0.insert(channel) }
    }

    /// Keeps `line` (as sent, without CR LF) if it is of a kind the service hands out and names a
    /// channel; `playedAtMs` is when it was played (milliseconds since 1970). Loop thread.
    ///
    /// - Complexity: O(line length); a CLEARMSG or CLEARCHAT adds a pass over its channel's ring.
    /// - Allocations: none once the channel's ring is full (one per new channel, a few while a ring
    ///   fills).
    package func record(_ line: Span<UInt8>, playedAtMs: Int64) {
        guard let message = try? TwitchMessage.parse(line), message.channel != nil,
            RecentMessagesRenderer.isExported(message.command, message.line, in: line)
        else { return }
        // A line serve sends always parses and names one of the log's channels; the store holds
        // 262,144 channels: nothing is refused here.
        _ = try? store.append(line, message: message, receivedAt: playedAtMs)
    }
}
