import ArgumentParser

/// The values a numeric option takes. Its help text states them (``text``) and its parser
/// (``parse(_:)``, given as the option's `transform:`) enforces them, so that a value outside —
/// `nan`, `inf`, a negative number, a number too large for the type, text that is no number — is a
/// usage error (exit 64) that names the option and the range, before any of it is used:
///
///     Error: The value '1e300' is invalid for '--duration <duration>': must be 0.001 to 31536000 seconds
///
/// The bounds keep every later computation (milliseconds in an `Int64`, allocations per entry) far
/// from overflow and from memory exhaustion.
struct NumberRange<Value: Comparable & LosslessStringConvertible & Sendable>: Sendable {
    let bounds: ClosedRange<Value>
    /// The unit the error message names after the range ("seconds"), or "".
    let unit: String

    init(_ bounds: ClosedRange<Value>, unit: String = "") {
        self.bounds = bounds
        self.unit = unit
    }

    /// The range as help and messages show it: `0.001 to 31536000`.
    var text: String { "\(Self.show(bounds.lowerBound)) to \(Self.show(bounds.upperBound))" }

    /// `argument` as a value inside the range.
    ///
    /// - Throws: `ValidationError("must be <range>[ <unit>]")`, which ArgumentParser reports with the
    ///   option and the value given.
    func parse(_ argument: String) throws -> Value {
        guard let value = Value(argument), bounds.contains(value) else {
            throw ValidationError("must be \(text)" + (unit.isEmpty ? "" : " \(unit)"))
        }
        return value
    }

    /// A bound without a trailing `.0`: `31536000`, `0.001`.
    static func show(_ value: Value) -> String {
        let text = String(value)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}

/// The ranges of the options several commands share.
enum OptionRanges {
    /// Entries kept per channel (`--capacity`): the rings grow with the chat, so a large value costs
    /// nothing on a small input; the bound keeps one channel's ring under about 1 GB of busy chat.
    static let capacity = NumberRange(1...1_000_000)
    /// A `--speed` factor of real time (or `max`): a line is never held back more than 100 years.
    static let speed = NumberRange(0.001...1_000_000.0)
    /// A `--duration`: up to a (365-day) year.
    static let duration = NumberRange(0.001...31_536_000.0, unit: "seconds")
}
