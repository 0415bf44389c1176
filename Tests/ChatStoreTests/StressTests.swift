@testable import ChatStore
import IRCWire
import Synchronization
import Testing

/// One appender at full speed, readers resolving windows and entries at the same time. Run under
/// ThreadSanitizer by `make tsan` (part of `make test`): it must report no race, and every byte a
/// reader sees must belong to the sequence number it asked for.
@Suite(.serialized) struct StressTests {
    @Test("Stress: appender and readers on different threads never see stale or torn entries")
    func appenderAndReaders() async throws {
        let store = ChatStore(capacity: 2_500, windowSize: 150, interval: 1)
        let total = 200_000
        let done = Flag()
        // Create the log and its observer before the threads start (the owner does this).
        _ = try store.ingest(line(0).span, receivedAt: 0)
        let box = store.viewModel.observe(channel: 0)

        let results = await withTaskGroup(of: (checked: Int, bad: Int, missed: UInt64).self) { group in
            group.addTask {
                for n in 1..<total {
                    _ = try! store.ingest(line(UInt64(n), padding: n % 5 == 0 ? 900 : n % 200).span, receivedAt: Int64(n))
                    if n % 64 == 0 { store.publish(now: Int64(n)) }
                }
                store.publish(now: Int64(total), force: true)
                done.value.store(true, ordering: .releasing)
                return (0, 0, 0)
            }
            for r in 0..<2 {
                group.addTask {
                    let reader = store.readers.makeReader()!
                    let log = store.log(at: 0)!
                    var checked = 0
                    var bad = 0
                    var missed: UInt64 = 0
                    while !done.value.load(ordering: .acquiring) {
                        if r == 0, let change = box.take() {
                            let read = log.ring.withEntries(in: change.window.range, reader: reader) { info, bytes in
                                if !Self.matches(info.seq, info, bytes) { bad += 1 }
                                checked += 1
                            }
                            missed += read.missed
                        } else {
                            let live = log.ring.liveRange
                            guard !live.isEmpty else { continue }
                            let seq = live.lowerBound + UInt64(checked % max(1, live.count))
                            let found = log.ring.withEntry(seq, reader: reader) { info, bytes in Self.matches(seq, info, bytes) }
                            if case .found(let ok) = found {
                                checked += 1
                                if !ok { bad += 1 }
                            }
                        }
                    }
                    return (checked, bad, missed)
                }
            }
            var all: [(checked: Int, bad: Int, missed: UInt64)] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.reduce(0) { $0 + $1.bad } == 0)
        #expect(results.reduce(0) { $0 + $1.checked } > 0)
        #expect(store.log(at: 0)!.ring.liveRange == UInt64(total - 2_500)..<UInt64(total))
    }

    /// Whether `bytes` is the line made for `seq` (its text starts with "message <seq>").
    static func matches(_ seq: UInt64, _ info: EntryInfo, _ bytes: Span<UInt8>) -> Bool {
        guard info.seq == seq, let text = info.parsed.lastParam(in: bytes) else { return false }
        let expected = Array("message \(seq)".utf8)
        guard text.count >= expected.count else { return false }
        for (k, b) in expected.enumerated() where bytes[Int(text.lower) + k] != b { return false }
        return true
    }
}

final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
