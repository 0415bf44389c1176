import ChatPosix
import Foundation
import Synchronization
import Testing

/// `LoopHelper`: every index of every loop runs exactly once, the helper's thread takes part, and its
/// work is visible to the owner when `run` returns.
@Suite(.timeLimit(.minutes(20))) struct LoopHelperTests {
    final class Counts: @unchecked Sendable {  // each slot written by one thread at a time, read after `run`
        var hits: [Int]
        init(_ count: Int) { hits = Array(repeating: 0, count: count) }
    }

    @Test("every index of every loop runs exactly once, and what the body wrote is seen after run returns")
    func exactlyOnce() {
        let helper = LoopHelper()
        for count in [0, 1, 2, 3, 17, 1000, 5000] {
            for _ in 0..<20 {
                let counts = Counts(count)
                // Plain writes from both threads, each to its own slot: `run` must order them before its return.
                counts.hits.withUnsafeMutableBufferPointer { hits in
                    let base = UInt(bitPattern: hits.baseAddress)
                    helper.run(count) { i in
                        UnsafeMutablePointer<Int>(bitPattern: base)![i] += 1
                    }
                }
                #expect(counts.hits.allSatisfy { $0 == 1 }, "count \(count)")
            }
        }
        helper.stop()
        helper.stop()  // a second stop does nothing
    }

    @Test("the helper's thread runs a share: an index held by the owner is taken by the helper")
    func helperTakesPart() {
        let helper = LoopHelper()
        let threads = Mutex<[Int: UInt]>([:])
        let started = Atomic<Int>(0)
        // Two indices: whichever thread takes the first waits (up to a minute, for a busy machine) until
        // the other index has started, which only the other thread can do.
        helper.run(2) { i in
            threads.withLock { $0[i] = UInt(pthread_self()) }
            started.wrappingAdd(1, ordering: .sequentiallyConsistent)
            let deadline = Date().addingTimeInterval(60)
            while started.load(ordering: .sequentiallyConsistent) < 2 && Date() < deadline { usleep(100) }
        }
        let seen = threads.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen[0] != nil && seen[0] != seen[1], "both indices ran on one thread")
        #expect(helper.indicesHelped == 1)
    }
}
