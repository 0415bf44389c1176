import ChatFormat
public import ChatMemory
import ChatPosix
public import ChatStore
package import IRCWire
import Synchronization

/// The rings a recent-messages endpoint answers from: the last ``limit`` lines of each channel of
/// the kinds a recent-messages service hands out (PRIVMSG, CLEARCHAT, CLEARMSG, USERNOTICE, NOTICE
/// but the few it leaves out, ROOMSTATE), as received, with the moment each was received (or, in
/// serve, played) and what moderation did to it. Serve keeps what its shared timeline plays;
/// capture and tail (`--http-port`) what they receive.
///
/// The lines live in a ``ChatStore`` of ring capacity ``limit`` (moderation applied in place as
/// CLEARMSG and CLEARCHAT come): a line is copied once into its channel's ring, which is storage the
/// ring allocated while it filled, so a full ring records a line without an allocation. HTTP threads
/// read the rings through the store's reader pins; the channels joined are behind a lock taken at
/// a JOIN or PART and by readers, never per line.
///
/// ``record(_:message:receivedAt:)``, ``join(_:)`` and ``part(_:)`` run on one thread (the store's
/// owner: serve's loop, the ingest thread); ``store`` and ``isJoined(_:)`` on any thread.
public final class RecentHistory: Sendable {
    /// The most lines kept per channel.
    public let limit: Int
    /// The rings (see the type's summary for who may do what).
    public let store: ChatStore
    private let joined = Mutex<Set<String>>([])

    /// - Parameter budget: the process-wide bound on what rings reserve, shared with the process's
    ///   other stores (the budget keeps the last 150 lines of a channel, or all of `limit` if fewer).
    /// - Precondition: `limit >= 1`.
    public init(limit: Int, budget: MemoryBudget? = nil) {
        precondition(limit >= 1, "the history keeps at least one line per channel")
        self.limit = limit
        store = ChatStore(capacity: limit, internsSenders: false, pages: .system, budget: budget)
    }

    /// Whether `channel` (a login) is joined: by a client on serve's shared timeline, by the
    /// session in capture and tail. Any thread.
    public func isJoined(_ channel: String) -> Bool {
        joined.withLock { $0.contains(channel) }
    }

    /// Records that `channel` is joined. Owner thread.
    package func join(_ channel: String) {
        _ = joined.withLock { $0.insert(channel) }
    }

    /// Records that `channel` is no longer joined (its lines stay). Owner thread.
    package func part(_ channel: String) {
        _ = joined.withLock { $0.remove(channel) }
    }

    /// Keeps `line` (as received, without CR LF), already parsed as `message`, if it is of a kind the
    /// service hands out and names a channel; `receivedAt` is when it was received. Owner thread.
    ///
    /// - Complexity: O(line length); a CLEARMSG or a CLEARCHAT of a user adds O(1 + entries it marks)
    ///   (moderation's index), a CLEARCHAT of the whole chat a pass over its channel's ring.
    /// - Allocations: none once the channel's ring is full (one per new channel, a few while a ring
    ///   fills).
    package func record(_ line: Span<UInt8>, message: TwitchMessage, receivedAt: Timestamp) {
        guard message.channel != nil, RecentMessagesRenderer.isExported(message.command, message.line, in: line)
        else { return }
        // The store holds 262,144 channels; past that a line is not kept here (it is still captured).
        _ = try? store.append(line, message: message, receivedAt: receivedAt)
    }
}
