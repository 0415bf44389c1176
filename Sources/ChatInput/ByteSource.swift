import ChatPosix

/// Something that yields the bytes of one input in order: a file, standard input, a decompressor.
///
/// `read(into:)` writes straight into the caller's buffer, typically the free tail a
/// `LineFramer.fill(_:)` lends, so bytes are not copied on the way to the framer:
///
/// ```swift
/// try framer.fill { free throws(InputError) in try source.read(into: free) }
/// ```
///
/// A source is confined to the task that reads it; conformers are not `Sendable`.
public protocol ByteSource: ~Copyable {
    /// The input's name for messages: its path, or `-` for standard input.
    var name: String { get }

    /// Writes up to `buffer.count` bytes into `buffer` and returns how many; 0 means the end of the
    /// input (and stays 0 on later calls).
    ///
    /// A source may deliver its data and then throw a damage error (``InputError/isDamage``) on a
    /// later call; after any error the source is at its end.
    ///
    /// - Precondition: `buffer.count > 0`.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int

    /// Whether the source owns an open file descriptor now (counted in ``InputDescriptors``).
    var holdsDescriptor: Bool { get }

    /// Whether the source gave its descriptor back and a read that needs the file opens it again.
    var isReleased: Bool { get }

    /// Gives the descriptor back if the source can open its file again later and go on where it was
    /// (a regular file read by path); see ``FileSource/releaseDescriptor()``.
    ///
    /// - Returns: whether a descriptor was closed.
    @discardableResult
    mutating func releaseDescriptor() -> Bool

    /// Whether ending the input where the last read stopped cuts nothing the source has begun (a
    /// gzip member started and not finished); asked at a pause of a growing file.
    var endsCleanlyHere: Bool { get }
}

extension ByteSource where Self: ~Copyable {
    /// A source without a descriptor of its own (e.g. bytes in memory).
    public var holdsDescriptor: Bool { false }
    public var isReleased: Bool { false }
    public var endsCleanlyHere: Bool { true }
    @discardableResult
    public mutating func releaseDescriptor() -> Bool { false }
}
