import ChatStore
import ChatTestSupport
import IRCWire
import Synchronization

/// One appender at full speed and readers on their own threads resolving windows and entries at the
/// same time. Run under ThreadSanitizer by `make tsan` (part of `make test`): it must report no race,
/// and every byte a reader sees must belong to the sequence number it asked for.
///
/// Dedicated threads (``spawn(_:)``), so that neither reader waits for the appender to finish.
/// Reader B never touches a lock, so that no mutex hides a missing happens-before edge from
/// ThreadSanitizer; it reads the oldest entries, the ones eviction overwrites.
enum StoreStress {
    /// Appender and readers on different threads never see stale or torn entries.
    static func appenderAndReaders() throws {
        // Past the ring many times over (capacity 2,500) at any scale.
        let total = StressScale.of(200_000, atLeast: 20_000)
        let store = ChatStore(capacity: 2_500, windowSize: 150, interval: 1)
        let done = Flag()
        // The owner creates the log and the observer before the threads start.
        _ = try store.ingest(numberedLine(0).span, receivedAt: .epoch)
        let box = store.viewModel.observe(channel: 0)
        let windowReader = Tally()
        let oldestReader = Tally()

        let threads = [
            spawn {
                for n in 1..<total {
                    _ = try! store.ingest(
                        numberedLine(UInt64(n), padding: n % 5 == 0 ? 900 : n % 200).span,
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
        check(windowReader.bad.load(ordering: .relaxed) == 0, "stale or torn entries in windows")
        check(oldestReader.bad.load(ordering: .relaxed) == 0, "stale or torn oldest entries")
        check(windowReader.checked.load(ordering: .relaxed) > 0, "reader A checked no entry")
        check(oldestReader.checked.load(ordering: .relaxed) > 0, "reader B checked no entry")
        check(try require(store.log(at: 0)).ring.liveRange == UInt64(total - 2_500)..<UInt64(total))
    }

    /// Line `seq` of channel `#g<channel>`: id `m<seq>`, text "message <seq>" and `padding` "x"s (the
    /// growth and budget scenarios' lines).
    static func channelLine(_ channel: Int, _ seq: Int, padding: Int) -> [UInt8] {
        Array("@id=m\(seq) :u!u@u PRIVMSG #g\(channel) :message \(seq)\(String(repeating: "x", count: padding))".utf8)
    }

    /// Whether `bytes` is the line made for `seq` (its text starts with "message <seq>").
    ///
    /// Compares in place, without building the expected text: readers call it for every entry they
    /// walk, and an eviction waits for a walk (it pins the walk's lowest entry), so under TSan, where
    /// every allocation is slow, an allocating check would pace the appender. O(digits of `seq`).
    static func matches(_ seq: UInt64, _ info: EntryInfo, _ bytes: Span<UInt8>) -> Bool {
        guard info.seq == seq, let text = info.parsed.lastParam(in: bytes) else { return false }
        let prefix: StaticString = "message "
        var digits = 1
        var power: UInt64 = 10
        while power <= seq && digits < 20 {
            digits += 1
            power = power &* 10
        }
        guard text.count >= prefix.utf8CodeUnitCount + digits else { return false }
        var at = Int(text.lower)
        for k in 0..<prefix.utf8CodeUnitCount where bytes[at + k] != prefix.utf8Start[k] { return false }
        at += prefix.utf8CodeUnitCount
        var rest = seq
        for k in (0..<digits).reversed() {
            guard bytes[at + k] == UInt8(ascii: "0") + UInt8(rest % 10) else { return false }
            rest /= 10
        }
        return true
    }
}
