import ChatInput
import ChatStore
public import IRCWire
public import TwitchSession

/// Live chat into an ``OutputPipeline`` (`tail`): what the live session's handlers hand over (ChatLive's
/// `LiveSession`: a line with its ``Moment`` and number, a ``LiveProblem``), dressed as the pipeline's
/// input. A line is a ``MergeEvent`` of one input named ``liveInputName`` (index 0,
/// numbered per connection as the session numbers it), ordered by its `time` or `tmi-sent-ts` tag, else
/// by the time it was received (``MergedLine/TimeSource/received``: its `ts` stays `null`). A
/// ``LiveProblem`` becomes the pipeline's malformed or skipped line, cut-off count or report.
///
/// Runs on the live session's ingest thread, the pipeline's owner.
extension OutputPipeline {
    /// The input name live lines carry in the pipeline's diagnostics (`live:12: malformed line: …`).
    public static let liveInputName = "live"

    /// Handles one line of the live session's `onLine`.
    ///
    /// - Complexity: O(line length), as ``handle(_:_:)``. - Allocations: as ``handle(_:_:)``.
    public func handleLive(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, receivedAt: Moment, lineNumber: Int
    ) throws(OutputError) {
        let time = LineTime(of: message, in: bytes)
        let at = MergedLine(
            inputName: Self.liveInputName, inputIndex: 0, lineNumber: lineNumber, byteOffset: 0,
            timestamp: time.timestamp ?? receivedAt.wall,
            timeSource: time.origin == .timeTag ? .timeTag : (time.origin == .tmiSentTs ? .tmiSentTs : .received))
        try handle(.line(at, message), bytes)
    }

    /// Handles one problem of the live session's `onProblem`: counted and reported as a file input's
    /// would be (``PipelineSummary/malformed``, ``PipelineSummary/skipped``, ``PipelineSummary/cutOff``).
    public func handleLive(_ problem: LiveProblem) throws(OutputError) {
        let at = { (line: Int) in
            MergedLine(
                inputName: Self.liveInputName, inputIndex: 0, lineNumber: line, byteOffset: 0, timestamp: nil,
                timeSource: .none)
        }
        switch problem {
        case .malformed(let line, let error): try handle(.malformed(at(line), error), [UInt8]().span)
        case .skipped(let error): try handle(.skipped(at(error.lineNumber), error), [UInt8]().span)
        case .cutOff: noteCutOff("\(problem)")
        case .backfillFailed, .backfillMisdated: report("\(problem)")
        }
    }
}
