import ChatArchive
import ChatHTTP
import ChatLive
import ChatMemory
import ChatPosix
import ChatStore
import TwitchSession

/// What a capture run says about itself: the previous run, `/metrics`' figures, the end of the run.
extension CaptureRun {
    /// What `/metrics` says of capture's files (`--http-port`). Ingest thread.
    ///
    /// - Complexity: O(channels).
    static func httpFigures(_ writer: CaptureWriter) -> IngestOutputFigures {
        let disk = writer.diskCounters
        let pressure = writer.backPressure
        return IngestOutputFigures(
            linesWritten: writer.lineCount, bytesWritten: disk.written, openFiles: writer.openFileCount,
            bufferedBytes: disk.queued, bufferLimit: writer.options.bufferLimit,
            backPressureEvents: pressure.events, backPressureMs: pressure.totalMs)
    }

    /// The note when the previous run in `directory` ended without its stop record.
    static func previousRunNote(_ previous: CapturePreviousRun, directory: String) -> String {
        "the previous capture run in \(directory) ended without a stop record (killed or crashed?); its last stored "
            + "line is from \(previous.lastLine.rfc3339)"
            + (previous.channels.isEmpty
                ? ""
                : ": a gap since then is recorded for #" + previous.channels.joined(separator: " #")
                    + ", ending as each is joined"
                    + (previous.channelLastLines.isEmpty
                        ? ""
                        : " (for #" + previous.channelLastLines.keys.sorted().joined(separator: " #")
                            + ", from its own last stored line: not live to the end, or flushed before the rest)"))
    }

    /// The end of a run that stopped as planned: `--status json`'s last object, and (unless quiet) what
    /// was captured, backfilled, trimmed, served and written once of RECONNECT overlaps.
    public func report(_ end: Ending) {
        if let finalStatus {
            var snapshot = finalStatus(Moment.now())
            snapshot.budgetTrimmedEntries = http?.budget?.trimmedEntries
            console.write(snapshot.json + "\n")
        }
        guard !settings.quiet else { return }
        let writer = end.writer
        let session = end.session
        let pressure = writer.backPressure
        console.note(
            "captured \(writer.lineCount) line\(writer.lineCount == 1 ? "" : "s"), \(writer.diskCounters.written) bytes written "
                + "(\(writer.uncompressedByteCount) before compression)"
                + (writer.unparsedLines > 0 ? ", \(writer.unparsedLines) malformed lines stored in _session" : "")
                + (writer.unjoinedLines > 0
                    ? ", \(writer.unjoinedLines) lines of channels not joined stored in _session" : "")
                + (unusableLines > 0 ? ", \(unusableLines) lines too long or cut off (not stored)" : "")
                + (settings.optOut.map { ", \($0.withheldLines) lines withheld by --opt-out (not stored)" } ?? "")
                + ", back-pressure \(pressure.events) times (\(pressure.totalMs) ms)")
        if session.recentMessages != nil { console.note("backfill: " + session.backfillCounters.summary) }
        if let budget = http?.budget { console.note(budget.summary) }
        if let http { console.note(http.summary) }
        if session.overlapDuplicates > 0 {
            console.note(
                "RECONNECT overlaps: \(session.overlapDuplicates) lines received on both connections, written once")
        }
    }
}
