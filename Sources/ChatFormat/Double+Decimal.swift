extension Double {
    /// The value rounded to one decimal, always with it: `12.0`, `3.5` (rates in status lines).
    /// Never traps: NaN gives `0.0`, and values beyond ±9 × 10¹⁷ (infinity too) are clamped to it.
    ///
    /// - Allocations: the string.
    package var oneDecimal: String {
        let scaled = (self * 10).rounded()
        let tenths = scaled.isNaN ? 0 : Int(Swift.min(Swift.max(scaled, -9e18), 9e18))
        return (tenths < 0 ? "-" : "") + "\(abs(tenths / 10)).\(abs(tenths % 10))"
    }
}
