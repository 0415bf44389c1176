import ChatPosix
import ChatStore
import TwitchSession

/// Following a directory that a capture is still writing (`replay DIR --follow`).
///
/// A merge that waits for the next line of every input cannot move while one file is quiet, and a
/// file that is still written never ends. So here no read waits: each lane reads its file up to the
/// current end (a gzip member up to its last flush) and pauses there (``FollowMode/pausesAtEnd``).
/// The merge then releases its earliest line
/// - at once when every lane has a line waiting (the merge order is then exact), or
/// - once ``FollowMode/settle`` has passed since the line's time: capture stamps each line with its
///   receive time and flushes every file at least every 500 ms, so a quiet file cannot later show a
///   line older than that. (A line that comes later than that anyway is still written, after
///   newer ones: nothing is held back for ever and nothing is dropped.)
/// Lanes with nothing to hand out wait in ``Following/waiting`` and are read again every
/// ``FollowMode/pollInterval``; the directory is listed again every ``FollowMode/rescanInterval``, and
/// each new file joins the chain it continues (a rotation: the lane moves on once the old file is
/// finished) or starts a lane of its own (a new channel). When following ends (its stop flag or
/// deadline), every file is read to its end and the merge drains in order.
extension MergeReader {
    /// What a reader that follows a directory keeps.
    struct Following {
        /// The command-line arguments, expanded again to find new files.
        var arguments: [String]
        /// Every path read or being read.
        var known: Set<String>
        /// Lanes with no event now (at a pause), read again at ``nextPoll``.
        var waiting: [Int] = []
        var nextPoll = ContinuousClock.now
        var nextScan = ContinuousClock.now
        /// Whether following ended and the last listing and reads were made (the merge drains).
        var isDraining = false
    }

    /// ``next(_:)`` of a reader that follows a directory: waits (running the mode's `idle`) until an
    /// event can be released, then hands it out.
    ///
    /// - Returns: `false` once following ended and every lane is drained.
    /// - Complexity: O(log lanes) per event, and two clock readings; every poll interval O(waiting
    ///   lanes) reads, every rescan interval a listing of the directory. - Allocations: none per line;
    ///   the listing's strings at each rescan.
    @inline(never)
    func nextFollowed<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) -> Bool {
        guard exhaustion == nil, let follow else { return false }
        if !started {
            start()
            following!.nextScan = .now + follow.rescanInterval
            following!.nextPoll = .now + follow.pollInterval
        }
        let settleMs = follow.settle.inMilliseconds
        while exhaustion == nil {
            let over = follow.isOver
            var now = ContinuousClock.now
            // Once following ended: one last listing and read of every file, then the merge drains.
            let last = over && !following!.isDraining
            if last { following!.isDraining = true }
            if last || (!over && now >= following!.nextScan) {
                rescan()
                following!.nextScan = now + follow.rescanInterval
            }
            if last || (!over && now >= following!.nextPoll) {
                wakeWaitingLanes()
                following!.nextPoll = now + follow.pollInterval
            }
            var wait = min(following!.nextScan, following!.nextPoll) - now
            if let top = heap.first {
                let time = lanes[top]!.sortKey.milliseconds
                let dueInMs = time == .min ? Int64.min : time &+ settleMs &- Moment.now().wall.milliseconds
                if over || following!.waiting.isEmpty || dueInMs <= 0 {
                    try handOutTop(body)
                    return true
                }
                wait = min(wait, .milliseconds(dueInMs))
            } else if over {
                return false
            }
            if let due = follow.idle?() {
                now = .now
                wait = min(wait, due - now)
            }
            if wait > .zero { sleepThread(for: wait) }
        }
        return false
    }

    /// Reads every waiting lane again: those with an event go on the heap; when following ended, the
    /// others are retired.
    private func wakeWaitingLanes() {
        let waiting = following!.waiting
        following!.waiting.removeAll(keepingCapacity: true)
        for number in waiting {
            guard lanes[number] != nil else { continue }
            startLane(number)
        }
    }

    /// Lists the directories again and adds the files not seen before: each to the lane whose chain it
    /// continues (``InputPaths/sequentialGroups(_:)``), else to a new lane.
    private func rescan() {
        // Argument by argument: a directory without logs yet (or one that vanished) hides no other's files.
        var listed: [String] = []
        for argument in following!.arguments {
            if let expansion = try? InputPaths.expansion(of: [argument]) { listed += expansion.paths }
        }
        let fresh = listed.filter { !following!.known.contains($0) }
        guard !fresh.isEmpty else { return }
        let first = paths.count
        for path in fresh {
            following!.known.insert(path)
            paths.append(path)
        }
        var laneOfInput: [Int: Int] = [:]
        for (number, group) in groups.enumerated() {
            for input in group { laneOfInput[input.index] = number }
        }
        for group in InputPaths.sequentialGroups(paths) {
            let added = group.filter { $0 >= first }.map { (index: $0, path: paths[$0]) }
            guard !added.isEmpty else { continue }
            if let earlier = group.last(where: { $0 < first }), let number = laneOfInput[earlier],
                let lane = lanes[number]
            {
                // A rotation: the lane reads the new file once the one before it is finished.
                for input in added { lane.append(input) }
                groups[number] += added
                continue
            }
            // A new chain (a new channel): a lane of its own, read at the next poll.
            let number = groups.count
            groups.append(added)
            lanes.append(makeLane(number))
            following!.waiting.append(number)
        }
    }
}
