import ChatHTTP
import ChatReplay

extension TailCommand {
    /// What `/metrics` says of tail's output (`--http-port`): the lines written. Ingest thread.
    static func httpFigures(_ pipeline: Replay) -> IngestOutputFigures {
        IngestOutputFigures(linesWritten: UInt64(pipeline.summary.written))
    }
}
