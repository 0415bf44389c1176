import ChatArchive
import ChatHTTP

extension CaptureCommand {
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
}
