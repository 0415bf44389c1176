import ArgumentParser

/// A `--speed` value, as `replay`, `watch` and `serve` read it: a factor of real time in
/// ``OptionRanges/speed``, or `max` for no pacing.
struct Speed: Sendable, Equatable, CustomStringConvertible {
    /// The factor of real time, or `nil` for `max`.
    let factor: Double?

    static let max = Speed(factor: nil)

    /// `max` or a factor in range.
    ///
    /// - Throws: `ValidationError("must be max or <range>")`, reported with the option and value.
    static func parse(_ text: String) throws -> Speed {
        if text == "max" { return .max }
        guard let factor = Double(text), OptionRanges.speed.bounds.contains(factor) else {
            throw ValidationError("must be max or \(OptionRanges.speed.text)")
        }
        return Speed(factor: factor)
    }

    var description: String { factor.map(NumberRange<Double>.show) ?? "max" }
}
