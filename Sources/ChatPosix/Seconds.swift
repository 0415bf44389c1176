/// Seconds given as a `Double` (a command-line option, a library parameter) turned into whole
/// milliseconds that are safe to add to a clock reading, whatever the `Double`.
///
/// `Int64(x)` traps for NaN, infinity and anything beyond ±9.2e18; a wait or deadline longer than
/// ``maximumMilliseconds`` (100 years) means "never" for every use in chatcap, so values are clamped
/// to it instead.
package enum Seconds {
    /// The longest wait or deadline: 100 years (365-day years), in milliseconds.
    package static let maximumMilliseconds: Int64 = 100 * 365 * 86_400_000

    /// `seconds` in whole milliseconds, rounded up (a positive time stays positive) and clamped to
    /// `0 ... maximumMilliseconds`; NaN and negative values give 0.
    ///
    /// - Complexity: O(1). - Allocations: none.
    package static func milliseconds(_ seconds: Double) -> Int64 {
        milliseconds(fromMilliseconds: seconds * 1000)
    }

    /// `milliseconds` (a `Double`, e.g. a time difference divided by a speed) rounded up to a whole
    /// millisecond and clamped to `0 ... maximumMilliseconds`; NaN and negative values give 0.
    ///
    /// - Complexity: O(1). - Allocations: none.
    package static func milliseconds(fromMilliseconds milliseconds: Double) -> Int64 {
        guard milliseconds > 0 else { return 0 }  // also NaN
        guard milliseconds < Double(maximumMilliseconds) else { return maximumMilliseconds }
        return Int64(milliseconds.rounded(.up))
    }
}
