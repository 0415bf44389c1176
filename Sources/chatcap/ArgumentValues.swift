import ArgumentParser

/// Argument values several commands read the same way: `--speed` (channel names: ``Login``).
enum ArgumentValues {
    /// A `--speed` value: a positive factor of real time, or `nil` for `max`.
    static func speed(_ text: String) throws -> Double? {
        if text == "max" { return nil }
        guard let speed = Double(text), speed > 0, speed.isFinite else {
            throw ValidationError("--speed must be a positive number or max, not '\(text)'")
        }
        return speed
    }
}
