import IRCWire
import Synchronization
import Testing

@testable import ChatStore

#if canImport(Glibc)
    import Glibc
#endif

/// One appender at full speed and readers on their own threads resolving windows and entries at the
/// same time. Run under ThreadSanitizer by `make tsan` (part of `make test`): it must report no race,
/// and every byte a reader sees must belong to the sequence number it asked for.
///
/// Dedicated threads, not tasks: the cooperative pool has as many threads as cores (2 here), which
/// would leave a reader waiting for the appender to finish. Reader B never touches a lock, so that
/// no mutex hides a missing happens-before edge from ThreadSanitizer; it reads the oldest entries,
/// the ones eviction overwrites.
@Suite(.serialized, .timeLimit(.minutes(20))) struct StressTests {
    @Test("Stress: appender and readers on different threads never see stale or torn entries")
    func appenderAndReaders() throws {
        let store = ChatStore(capacity: 2_500, windowSize: 150, interval: 1)
        let total = 200_000
        let done = Flag()
        // The owner creates the log and the observer before the threads start.
        _ = try store.ingest(line(0).span, receivedAt: .epoch)
        let box = store.viewModel.observe(channel: 0)
        let windowReader = Tally()
        let oldestReader = Tally()

        let threads = [
            spawn {
                for n in 1..<total {
                    _ = try! store.ingest(
                        line(UInt64(n), padding: n % 5 == 0 ? 900 : n % 200).span,
                        receivedAt: Timestamp(milliseconds: Int64(n)))
                    if n % 64 == 0 { store.publish(now: Int64(n)) }
                }
                store.publish(now: Int64(total), force: true)
                done.value.store(true, ordering: .releasing)
            },
            spawn {  // Reader A: resolves each published window.
                let reader = store.readers.makeReader()!
                let log = store.log(at: 0)!
                while !done.value.load(ordering: .acquiring) {
                    guard let change = box.take() else { continue }
                    let read = log.ring.withEntries(in: change.window.range, reader: reader) { info, bytes in
                        windowReader.record(Self.matches(info.seq, info, bytes))
                    }
                    windowReader.missed.add(Int(read.missed), ordering: .relaxed)
                }
            },
            spawn {  // Reader B: the oldest live entries, no lock anywhere.
                let reader = store.readers.makeReader()!
                let log = store.log(at: 0)!
                var k: UInt64 = 0
                while !done.value.load(ordering: .acquiring) {
                    let live = log.ring.liveRange
                    guard !live.isEmpty else { continue }
                    k = (k + 1) % 8
                    let seq = live.lowerBound + min(k, UInt64(live.count - 1))
                    let found = log.ring.withEntry(seq, reader: reader) { info, bytes in Self.matches(seq, info, bytes)
                    }
                    if case .found(let ok) = found { oldestReader.record(ok) }
                }
            },
        ]
        for t in threads { join(t) }
        #expect(windowReader.bad.load(ordering: .relaxed) == 0)
        #expect(oldestReader.bad.load(ordering: .relaxed) == 0)
        #expect(windowReader.checked.load(ordering: .relaxed) > 0)
        #expect(oldestReader.checked.load(ordering: .relaxed) > 0)
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

final class Tally: Sendable {
    let checked = Atomic<Int>(0)
    let bad = Atomic<Int>(0)
    let missed = Atomic<Int>(0)
    func record(_ ok: Bool) {
        checked.add(1, ordering: .relaxed)
        if !ok { bad.add(1, ordering: .relaxed) }
    }
}

/// Runs `body` on a new POSIX thread.
func spawn(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box: @unchecked Sendable {  // handed to exactly one thread
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, nil,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return thread
}

func join(_ thread: pthread_t) {
    pthread_join(thread, nil)
}
