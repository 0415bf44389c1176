import Foundation
import Glibc

/// A fresh directory for one process-driving test, `$TMPDIR/chatcap-<name>-<pid>`, emptied if a run
/// before left it; the test removes it when done with ``remove(_:)``, which keeps it when
/// `KEEP_TEST_DIRS` is set (to look at after a failure).
enum CLITempDirectory {
    /// Whether `KEEP_TEST_DIRS` asks to keep the directories.
    static var keeps: Bool { ProcessInfo.processInfo.environment["KEEP_TEST_DIRS"] != nil }

    /// Removes `dir`, unless ``keeps``.
    static func remove(_ dir: String) {
        if !keeps { try? FileManager.default.removeItem(atPath: dir) }
    }

    static func make(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chatcap-\(name)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
