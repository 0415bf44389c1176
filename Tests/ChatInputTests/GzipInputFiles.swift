import ChatGzip
import ChatTestSupport

extension InputTempDirectory {
    /// Writes `bytes` gzip-compressed (by the capture's own ``GzipWriter``) to `relative`, with its
    /// parent directories created, and returns the full path.
    @discardableResult
    func writeGzip(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let full = try file(relative)
        let writer = try GzipWriter(path: full)
        try writer.write(bytes.span)
        try writer.close()
        return full
    }
}
