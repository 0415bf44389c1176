import ChatMemory
import ChatPosix
import ChatStore
import IRCWire
import Synchronization

/// Readers on another thread while the memory budget trims and compacts rings: the appender spreads
/// lines over 40 channels under a budget far below what they would hold, so passes release entries
/// and move the survivors into smaller storage and tables all the time, while a reader walks every
/// channel's live entries and single entries. Run under ThreadSanitizer by `make tsan`.
enum StoreBudgetStress {
    /// Readers during budget trims and compactions never see stale or torn entries.
    static func readersDuringTrims() throws {
        let channels = 40
        let perChannel = 3_000
        let budget = MemoryBudget(limit: 256 << 10)
        let store = ChatStore(
            capacity: 1_000, windowSize: 20, interval: 1, internsSenders: false, channelLimit: 64, pages: .system,
            budget: budget, budgetFloor: 20)
        let done = Flag()
        let tally = Tally()
        @Sendable func bytes(_ channel: Int, _ seq: Int) -> [UInt8] {
            StoreStress.channelLine(channel, seq, padding: seq % 200)
        }
        for c in 0..<channels { _ = try store.ingest(bytes(c, 0).span, receivedAt: .epoch) }
        // The rounds each channel speaks in, by its sequence number: entry `seq` of channel c must be
        // the line of round `rounds[c][seq]`. An entry of an older line left in a reused slot is
        // stale: its text and id still agree, only this tells it apart.
        let rounds: [[Int]] = (0..<channels).map { c in
            [0] + (1..<perChannel).filter { s in s % (c % 4 + 1) == 0 || s > perChannel - 2 }
        }

        let threads = [
            spawn {
                for s in 1..<perChannel {
                    // Uneven: channel c speaks on every (c % 4 + 1)-th round, so recency differs.
                    for c in 0..<channels where s % (c % 4 + 1) == 0 || s > perChannel - 2 {
                        _ = try! store.ingest(bytes(c, s).span, receivedAt: .epoch)
                    }
                }
                done.value.store(true, ordering: .releasing)
            },
            spawn {
                let reader = store.readers.makeReader()!
                var c = 0
                var k: UInt64 = 0
                while !done.value.load(ordering: .acquiring) {
                    c = (c + 1) % channels
                    guard let log = store.log(at: c) else { continue }
                    let live = log.ring.liveRange
                    guard !live.isEmpty else { continue }
                    var expected = live.lowerBound
                    log.ring.withEntries(in: live, reader: reader) { info, bytes in
                        // In order, none repeated (a trim may release entries while they are read:
                        // those are skipped).
                        tally.record(info.seq >= expected && Self.matches(info, bytes, round: rounds[c]))
                        expected = info.seq + 1
                    }
                    k = (k &+ 7) % UInt64(live.count)
                    let seq = live.lowerBound + k
                    if case .found(let ok) = log.ring.withEntry(
                        seq, reader: reader,
                        { info, bytes in
                            info.seq == seq && Self.matches(info, bytes, round: rounds[c])
                        })
                    {
                        tally.record(ok)
                    }
                }
            },
        ]
        for t in threads { join(t) }
        check(tally.bad.load(ordering: .relaxed) == 0, "stale or torn entries")
        check(
            tally.checked.load(ordering: .relaxed) > 1_000,
            "the reader checked \(tally.checked.load(ordering: .relaxed))")
        check(budget.passes > 10 && budget.releasedBytes > 0, "\(budget.passes) passes")
        var reserved = 0
        for c in 0..<channels {
            let ring = try require(store.log(at: c)).ring
            reserved += ring.reservedBytes
            check(ring.count >= 20, "channel \(c) holds \(ring.count)")
        }
        check(budget.heldBytes == reserved, "budget holds \(budget.heldBytes), rings reserve \(reserved)")
    }

    /// Entry `info.seq` of a channel holds its line of round `round[seq]`: id `m<round>` and text
    /// "message <round>" (not torn: id and text agree; not stale: the round is the sequence number's).
    @Sendable static func matches(_ info: EntryInfo, _ bytes: Span<UInt8>, round: [Int]) -> Bool {
        guard let text = info.parsed.lastParam(in: bytes), let id = info.parsed.tag("id", in: bytes),
            info.seq < UInt64(round.count)
        else { return false }
        var idText: [UInt8] = []
        for i in id.raw.lower..<id.raw.upper { idText.append(bytes[Int(i)]) }
        guard idText == Array("m\(round[Int(info.seq)])".utf8) else { return false }
        let expected = Array("message ".utf8) + idText.dropFirst()
        guard text.count >= expected.count else { return false }
        for (k, b) in expected.enumerated() where bytes[Int(text.lower) + k] != b { return false }
        return true
    }
}
