/// What one non-blocking read produced.
public enum ReadOutcome: Sendable, Equatable {
    /// This many bytes (at least 1) were written into the buffer.
    case bytes(Int)
    /// Nothing to read now; wait for the descriptor to become readable.
    case wouldBlock
    /// The peer closed its side: no more bytes will come.
    case endOfStream
}
