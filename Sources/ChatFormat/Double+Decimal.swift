extension Double {
    /// The value rounded to one decimal, always with it: `12.0`, `3.5` (rates in status lines).
    ///
    /// - Allocations: the string.
    package var oneDecimal: String {
        let tenths = Int((self * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
