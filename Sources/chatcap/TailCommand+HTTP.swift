import ChatHTTP
import ChatOutput

extension TailCommand {
    /// What `/metrics` says of tail's output (`--http-port`): the lines written. Ingest thread.
    static func httpFigures(_ pipeline: OutputPipeline) -> IngestOutputFigures {
        IngestOutputFigures(linesWritten: UInt64(pipeline.summary.written))
    }
}
