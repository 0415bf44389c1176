/// Compresses a body piece by piece into one gzip member, with the engine capture's files use
/// (``DeflateEngine``): for bodies that are sent as they are made (an HTTP answer streamed with
/// `Content-Encoding: gzip`), where ``GzipCompressor`` needs the whole input at once.
///
/// ``compress(_:into:)`` takes the next input and appends whatever output the engine has ready;
/// ``finish(into:)`` appends the rest and the trailer. Confined to one thread.
@safe
public final class GzipStream {
    private let engine: DeflateEngine
    private var finished = false
    /// The engine's output room per step.
    private var room = [UInt8](repeating: 0, count: 64 * 1024)

    /// - Parameter level: 0…9 (default 1: ISA-L's fastest).
    /// - Throws: ``GzipCompressorError`` when the library cannot start (out of memory).
    /// - Allocations: the engine's state and a 64 KiB output buffer, once.
    public init(level: Int32 = 1) throws(GzipCompressorError) {
        do throws(DeflateEngineError) {
            engine = try DeflateEngine(level: level)
        } catch {
            throw GzipCompressorError(reason: error.reason)
        }
    }

    /// Takes `input` and appends the compressed bytes the engine has ready to `output`.
    ///
    /// - Precondition: ``finish(into:)`` was not called.
    /// - Complexity: O(`input.count`). - Allocations: `output`'s growth.
    public func compress(_ input: Span<UInt8>, into output: inout [UInt8]) {
        precondition(!finished, "the member is finished")
        unsafe input.withUnsafeBytes { source in unsafe step(source, .none, into: &output) }
    }

    /// Ends the member: appends the last compressed bytes and the gzip trailer to `output`.
    ///
    /// - Complexity: O(output). - Allocations: `output`'s growth.
    public func finish(into output: inout [UInt8]) {
        guard !finished else { return }
        finished = true
        unsafe step(UnsafeRawBufferPointer(start: nil, count: 0), .finish, into: &output)
    }

    private func step(_ source: UnsafeRawBufferPointer, _ flush: DeflateEngine.Flush, into output: inout [UInt8]) {
        var consumed = 0
        while true {
            let done = unsafe room.withUnsafeMutableBytes { target in
                // SAFETY: `consumed <= source.count` (the engine never reports more than it was given).
                let rest = unsafe UnsafeRawBufferPointer(rebasing: source[consumed...])
                let step = unsafe engine.deflate(rest, into: target, flush: flush)
                consumed += step.consumed
                // SAFETY: the engine wrote `step.produced <= target.count` bytes at the start of `target`.
                unsafe output.append(contentsOf: UnsafeRawBufferPointer(rebasing: target[..<step.produced]))
                return step.complete
            }
            if done { return }
        }
    }
}

@available(*, unavailable)
extension GzipStream: Sendable {}
