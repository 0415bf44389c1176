/// Compresses a whole buffer into one gzip member, with the engine capture's files use
/// (``DeflateEngine``: ISA-L for levels 1…3, zlib otherwise), reused from member to member.
///
/// For bodies sent whole, e.g. `load`'s `Content-Encoding: gzip` INSERTs. Confined to one thread.
@safe
public final class GzipCompressor {
    private let engine: DeflateEngine
    /// The library doing the work: `"isal"` or `"zlib"`.
    public var library: String { engine.library }

    /// - Parameter level: 0…9 (default 1: ISA-L's fastest, which compresses chat about 4:1).
    /// - Throws: ``GzipCompressorError`` when the library cannot start (out of memory).
    /// - Allocations: the engine's state, once.
    public init(level: Int32 = 1) throws(GzipCompressorError) {
        do throws(DeflateEngineError) {
            engine = try DeflateEngine(level: level)
        } catch {
            throw GzipCompressorError(reason: error.reason)
        }
    }

    /// `input` as one gzip member (readable by `zcat`, `gzip -t` and ``GzipSource``).
    ///
    /// - Complexity: O(`input.count`). - Allocations: the output array (grown if the input does not
    ///   compress to half).
    public func compress(_ input: [UInt8]) -> [UInt8] {
        engine.reset()
        var output = [UInt8](repeating: 0, count: input.count / 2 + 1024)
        var consumed = 0
        var produced = 0
        while true {
            let step = unsafe input.withUnsafeBytes { source in
                unsafe output.withUnsafeMutableBytes { target in
                    // SAFETY: `consumed <= source.count` and `produced < target.count` (room is added below
                    // whenever a step filled the output).
                    unsafe engine.deflate(
                        UnsafeRawBufferPointer(rebasing: source[consumed...]),
                        into: UnsafeMutableRawBufferPointer(rebasing: target[produced...]), flush: .finish)
                }
            }
            consumed += step.consumed
            produced += step.produced
            if step.complete { break }
            output.append(contentsOf: repeatElement(0, count: output.count))
        }
        output.removeSubrange(produced...)
        return output
    }
}

@available(*, unavailable)
extension GzipCompressor: Sendable {}

/// Why a ``GzipCompressor`` could not start.
public struct GzipCompressorError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "gzip compressor unavailable: \(reason)" }
}
