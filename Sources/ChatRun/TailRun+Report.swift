import ChatHTTP
import ChatLive
import ChatMemory
import ChatOutput
import ChatPosix
import ChatStore
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// What a tail run says about itself: `/metrics`' figures, the end of the run.
extension TailRun {
    /// What `/metrics` says of tail's output (`--http-port`): the lines written. Ingest thread.
    static func httpFigures(_ pipeline: OutputPipeline) -> IngestOutputFigures {
        IngestOutputFigures(linesWritten: UInt64(pipeline.summary.written))
    }

    /// The end of the run: with ``stats``, lines per second and CPU time (also since every JOIN had
    /// its outcome); what was backfilled, the memory budget, what the HTTP listener served and what
    /// RECONNECT overlaps wrote once.
    public func report(_ end: Ending) {
        if stats {
            let seconds = Double(Moment.now().monotonicMs - end.startedMs) / 1000
            var usage = rusage()
            // SAFETY: `usage` is a local rusage the call fills.
            unsafe getrusage(RUSAGE_SELF.rawValue, &usage)
            let cpu =
                Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            let lines = pipeline.summary.lines
            console.note(
                "stats: \(lines) lines in \(seconds) s = \(Int(Double(lines) / max(seconds, 0.001))) lines/s; CPU \(cpu) s (\(Int(cpu / max(seconds, 0.001) * 100)) % of one core)"
            )
            if let settled = end.settled {
                let since = Double(Moment.now().monotonicMs - settled.ms) / 1000
                let after = lines - settled.lines
                console.note(
                    "stats: since all joined (after \(Double(settled.ms - end.startedMs) / 1000) s): \(after) lines in \(since) s = "
                        + "\(Int(Double(after) / max(since, 0.001))) lines/s")
            }
        }
        let session = end.session
        if session.recentMessages != nil { console.note("backfill: " + session.backfillCounters.summary) }
        console.note(budget.summary)
        if let http { console.note(http.summary) }
        if session.overlapDuplicates > 0 {
            console.note(
                "RECONNECT overlaps: \(session.overlapDuplicates) lines received on both connections, written once")
        }
    }
}
