import ChatPosix
import ChatStore
import IRCWire
import Synchronization

/// Readers on another thread while rings grow: the appender fills one new channel after another, so
/// every channel's slot table grows by half from 16 slots to its capacity and its byte storage grows
/// several times, while a reader resolves the newest channel's live entries and single entries. Run
/// under ThreadSanitizer by `make tsan`: no race, and every entry a reader sees is the right one.
enum StoreGrowthStress {
    /// Readers during slot-table and byte-storage growth never see stale or torn entries.
    static func readersDuringGrowth() throws {
        let capacity = 1_000
        // Each new channel grows from nothing to its full ring (perChannel > capacity) at any scale.
        let channels = StressScale.of(24, atLeast: 4)
        let perChannel = 1_200
        let store = ChatStore(capacity: capacity, windowSize: 150, interval: 1, pages: .system)
        let done = Flag()
        let tally = Tally()
        @Sendable func bytes(_ channel: Int, _ seq: Int) -> [UInt8] {
            StoreStress.channelLine(channel, seq, padding: seq % 300)
        }
        _ = try store.ingest(bytes(0, 0).span, receivedAt: .epoch)

        let threads = [
            spawn {
                for c in 0..<channels {
                    for s in (c == 0 ? 1 : 0)..<perChannel {
                        _ = try! store.ingest(bytes(c, s).span, receivedAt: .epoch)
                    }
                    store.publish(now: Int64(c))
                }
                done.value.store(true, ordering: .releasing)
            },
            spawn {  // Reads the newest channel: the one growing right now.
                let reader = store.readers.makeReader()!
                var k: UInt64 = 0
                while !done.value.load(ordering: .acquiring) {
                    guard let log = store.log(at: store.channelCount - 1) else { continue }
                    let live = log.ring.liveRange
                    guard !live.isEmpty else { continue }
                    log.ring.withEntries(in: live, reader: reader) { info, bytes in
                        tally.record(StoreStress.matches(info.seq, info, bytes))
                    }
                    k = (k &+ 7) % UInt64(live.count)
                    let seq = live.lowerBound + k
                    if case .found(let ok) = log.ring.withEntry(
                        seq, reader: reader, { StoreStress.matches(seq, $0, $1) })
                    {
                        tally.record(ok)
                    }
                }
            },
        ]
        for t in threads { join(t) }
        check(tally.bad.load(ordering: .relaxed) == 0, "stale or torn entries")
        check(tally.checked.load(ordering: .relaxed) > 0, "the reader checked no entry")
        check(store.channelCount == channels)
        for c in 0..<channels {
            let ring = try require(store.log(at: c)).ring
            check(
                ring.slotCapacity == capacity && ring.liveRange == UInt64(perChannel - capacity)..<UInt64(perChannel),
                "channel \(c)")
            check(ring.byteStorageIsMapped, "the reader also ran while mapped storage grew in place")
        }
    }
}
