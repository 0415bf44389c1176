import ChatPosix
import ChatStore
import IRCWire

/// One lane of a ``MergeReader``: a sequence of inputs read one after another through one framer, and
/// the event at the front of the lane waiting for its turn in the merge.
///
/// The waiting line stays in the framer's buffer (only its range and parsed offsets are kept): the
/// framer is filled again only after that line was handed out, so the range stays valid.
///
/// Owned by its reader; confined to the reader's task.
final class MergeLane {
    /// The event at the front of the lane.
    enum Head {
        case line(FramedLine, TwitchMessage, MergedLine)
        case malformed(FramedLine, LineError, MergedLine)
        case skipped(FramingError, MergedLine)
        case failed(InputError, droppedByteCount: Int, MergedLine)

        var location: MergedLine {
            switch self {
            case .line(_, _, let at), .malformed(_, _, let at), .skipped(_, let at), .failed(_, _, let at): at
            }
        }
    }

    /// The inputs of the lane: their paths and positions in the reader's list.
    private let inputs: [(index: Int, path: String)]
    private var nextInput = 0
    private let follow: FollowMode?
    private var framer: LineFramer
    private var source: (any ByteSource)? = nil
    private var sourceEnded = false
    private var sourceError: InputError? = nil
    private var name = ""
    private var inputIndex = 0
    /// The time of the latest line with a usable time in this lane (carried across its inputs).
    private var lastTimestamp: Timestamp? = nil

    /// The event waiting to be handed out; `nil` once the lane is exhausted.
    private(set) var head: Head? = nil
    /// Whether the waiting line has a `time`/`tmi-sent-ts` tag that could not be read.
    private(set) var headHasUnreadableTag = false
    /// The merge order of ``head``: time (no time sorts first), then position in the reader's list.
    private(set) var sortKey: (milliseconds: Int64, inputIndex: Int) = (.min, 0)

    init(inputs: [(index: Int, path: String)], follow: FollowMode?, maxLineLength: Int, bufferCapacity: Int) {
        self.inputs = inputs
        self.follow = follow
        framer = LineFramer(maxLineLength: maxLineLength, bufferCapacity: bufferCapacity)
    }

    /// Lends the waiting event, and for lines their bytes, to `body`.
    ///
    /// - Precondition: ``head`` is not `nil`.
    func withHead<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) {
        guard let head else { preconditionFailure("withHead() on an exhausted lane") }
        switch head {
        case .line(let line, let message, let at):
            try framer.withBytes(of: line) { bytes throws(E) in try body(.line(at, message), bytes) }
        case .malformed(let line, let error, let at):
            try framer.withBytes(of: line) { bytes throws(E) in try body(.malformed(at, error), bytes) }
        case .skipped(let error, let at):
            try framer.withBytes(in: 0..<0) { empty throws(E) in try body(.skipped(at, error), empty) }
        case .failed(let error, let dropped, let at):
            try framer.withBytes(in: 0..<0) { empty throws(E) in
                try body(.inputFailed(at, error, droppedByteCount: dropped), empty)
            }
        }
    }

    /// Moves to the next event of the lane: reads and frames more bytes as needed, opens the lane's
    /// next input when one ends, and turns every problem into an event. ``head`` is `nil` afterwards
    /// only when the lane is exhausted.
    ///
    /// - Complexity: amortised O(bytes of the next line), plus reads. - Allocations: none, except
    ///   when an input is opened (its buffers) or fails (the error's strings).
    func advance() {
        head = nil
        headHasUnreadableTag = false
        while true {
            if source == nil {
                guard nextInput < inputs.count else { return }
                let input = inputs[nextInput]
                nextInput += 1
                framer.reset()
                sourceEnded = false
                sourceError = nil
                inputIndex = input.index
                name = input.path == "-" ? FileSource.standardInputName : input.path
                do {
                    source = try makeByteSource(path: input.path, follow: follow)
                } catch {
                    setHead(.failed(error, droppedByteCount: 0, location(line: 0, offset: 0, timestamp: nil)))
                    return
                }
            }
            if let event = framer.nextLine() {
                take(event)
                return
            }
            if sourceEnded {
                if let error = sourceError {
                    // Damage or a read error: a partial line after the last complete one is not a line.
                    let line = framer.lineCount + framer.skippedCount + 1
                    let offset = framer.streamOffset
                    let dropped = framer.reset()
                    source = nil
                    setHead(
                        .failed(error, droppedByteCount: dropped, location(line: line, offset: offset, timestamp: nil)))
                    return
                }
                if let event = framer.finish() {
                    take(event)
                    return
                }
                source = nil
                continue
            }
            do {
                let read = try unsafe framer.fill { free throws(InputError) -> Int in
                    try unsafe source!.read(into: free)
                }
                if read == 0 { sourceEnded = true }
            } catch {
                sourceEnded = true
                sourceError = error
            }
        }
    }

    /// Makes a framer event the head: parses a line and finds its time.
    private func take(_ event: FramerEvent) {
        switch event {
        case .line(let line):
            framer.withBytes(of: line) { bytes in
                do throws(LineError) {
                    let message = try TwitchMessage.parse(bytes)
                    let time = LineTime(of: message, in: bytes)
                    headHasUnreadableTag = time.hasUnreadableTag
                    var at = location(line: line.number, offset: line.offset, timestamp: time)
                    at.terminator = line.terminator
                    setHead(.line(line, message, at))
                } catch {
                    setHead(.malformed(line, error, location(line: line.number, offset: line.offset, timestamp: nil)))
                }
            }
        case .skipped(let error):
            setHead(.skipped(error, location(line: error.lineNumber, offset: error.offset, timestamp: nil)))
        }
    }

    /// Where an event of the current input happened, with the time it is merged by: its own when it
    /// has one (which then carries over to later lines), else the latest one before it.
    private func location(line: Int, offset: UInt64, timestamp time: LineTime?) -> MergedLine {
        let own = time?.timestamp
        let source: MergedLine.TimeSource
        if let own {
            lastTimestamp = own
            source = time?.origin == .timeTag ? .timeTag : .tmiSentTs
        } else {
            source = lastTimestamp == nil ? .none : .inherited
        }
        return MergedLine(
            inputName: name, inputIndex: inputIndex, lineNumber: line, byteOffset: offset,
            timestamp: own ?? lastTimestamp, timeSource: source)
    }

    private func setHead(_ new: Head) {
        head = new
        let at = new.location
        sortKey = (at.timestamp?.milliseconds ?? .min, at.inputIndex)
    }
}

@available(*, unavailable)
extension MergeLane: Sendable {}
