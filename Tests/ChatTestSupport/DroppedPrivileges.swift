import Glibc
import Testing

/// For a test that needs a user the file permissions apply to (root reads anything): run it in an
/// exit test, `await #expect(processExitsWith: .success) { try dropRootPrivileges(); … }`, so that
/// root runs it too, in a child process that has become `nobody`. A no-op when not root.
///
/// Permanent for the calling process (real, effective and saved ids, no supplementary groups), which
/// is why it belongs in an exit test's child, never in the test process itself.
public func dropRootPrivileges() throws {
    guard getuid() == 0 || geteuid() == 0 else { return }
    let nobody: uid_t = 65_534
    let nogroup: gid_t = 65_534
    try #require(setgroups(0, nil) == 0, "setgroups: errno \(errno)")
    // As root, setgid and setuid set the real, effective and saved ids alike.
    try #require(setgid(nogroup) == 0, "setgid: errno \(errno)")
    try #require(setuid(nobody) == 0, "setuid: errno \(errno)")
    try #require(getuid() == nobody && geteuid() == nobody, "still uid \(getuid())/\(geteuid())")
}
