import Foundation
import Glibc

/// A fresh directory for one process-driving test, `$TMPDIR/chatcap-<name>-<pid>`, emptied if a run
/// before left it; the test removes it when done (or keeps it to look at).
enum CLITempDirectory {
    static func make(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chatcap-\(name)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
