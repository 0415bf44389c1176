public import ChatGzip
import ChatPosix

/// Why a capture could not set up its directory or write a file.
///
/// The ``description`` stands alone as a message and names the path; the command maps every case to
/// exit status 74.
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The capture directory (or a channel's directory in it) cannot be created or written.
    case directory(path: String, errno: Int32)
    /// A capture file could not be opened, written, flushed or closed. Data flushed before is intact.
    case file(GzipWriterError)

    /// The path the error is about.
    public var path: String {
        switch self {
        case .directory(let path, _): path
        case .file(let error): error.path
        }
    }

    public var description: String {
        switch self {
        case .directory(let path, let code):
            "\(path): cannot create or write the capture directory: \(Errno.text(code))"
        case .file(let error):
            error.description
        }
    }
}
