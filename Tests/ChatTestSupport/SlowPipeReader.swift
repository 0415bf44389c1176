import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads `path` (a FIFO) in `chunk`-byte reads, pausing `pauseMs` after each, until end of file: a disk
/// slower than the producer, for the back-pressure tests of `WriteSpool` (ChatGzipTests) and of the
/// capture writer (ChatArchiveTests).
public final class SlowPipeReader: @unchecked Sendable {  // the box is read after `join()`
    private let thread: InputBackgroundThread

    public init(path: String, chunk: Int, pauseMs: UInt32) {
        let box = Box()
        thread = InputBackgroundThread {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: chunk)
            while true {
                let n = read(fd, &buffer, chunk)
                if n <= 0 { break }
                box.bytes += buffer[0..<n]
                usleep(pauseMs * 1000)
            }
            close(fd)
        }
        self.box = box
    }

    private final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
    private let box: Box

    /// Waits for the end of file and returns every byte read.
    public func join() -> [UInt8] {
        thread.join()
        return box.bytes
    }
}
