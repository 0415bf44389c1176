import ChatGzip

extension InputTempDirectory {
    /// Writes `bytes` gzip-compressed (by the capture's own ``GzipWriter``) to `relative`, with its
    /// parent directories created, and returns the full path.
    @discardableResult
    public func writeGzip(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let full = try file(relative)
        let writer = try GzipWriter(path: full)
        try writer.write(bytes.span)
        try writer.close()
        return full
    }

    /// `content` written to `name` and compressed by the real `gzip` (`gzip -c -n`).
    /// - Throws: ``InputShell/Failure`` when gzip fails.
    public func gzipByTool(_ content: [UInt8], name: String = "plain") throws -> [UInt8] {
        let path = try write(name, content)
        let result = try InputShell.run("gzip -c -n \(InputShell.quote(path))")
        guard result.status == 0 else { throw InputShell.Failure(command: "gzip", result: result) }
        return result.output
    }
}
