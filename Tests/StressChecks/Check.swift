import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Checks that failed so far, over every scenario and thread: `main` exits 1 when any did. (Swift
/// Testing's `#expect` records nothing outside a test, so StressChecks has its own.)
let failedChecks = Atomic<Int>(0)

/// Counts a failed check and prints it at once (with ✘, which Scripts/run_tests.sh lists among a
/// part's failures) when `condition` is false.
func check(
    _ condition: Bool, _ message: @autoclosure () -> String = "", fileID: StaticString = #fileID, line: Int = #line
) {
    guard !condition else { return }
    failedChecks.add(1, ordering: .relaxed)
    say("✘ \(fileID):\(line): check failed\(message().isEmpty ? "" : ": " + message())")
}

/// `value`, or a failed check and ``CheckFailure`` when it is nil (`#require`'s part).
func require<T>(
    _ value: T?, _ message: @autoclosure () -> String = "", fileID: StaticString = #fileID, line: Int = #line
)
    throws(CheckFailure) -> T
{
    guard let value else {
        check(false, "required value is nil " + message(), fileID: fileID, line: line)
        throw CheckFailure()
    }
    return value
}

/// Thrown by ``require(_:_:fileID:line:)``: the scenario stops, its failure already counted.
struct CheckFailure: Error {}
