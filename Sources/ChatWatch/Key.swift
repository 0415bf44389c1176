/// A key press, decoded from the bytes a terminal sends in raw mode.
public enum Key: Sendable, Hashable {
    /// A printable character (UTF-8 decoded).
    case character(Unicode.Scalar)
    /// Ctrl plus a letter (`control("c")` for Ctrl-C), for control bytes without a key of their own.
    case control(Unicode.Scalar)
    case enter, tab, backTab, backspace, escape
    case up, down, left, right
    case pageUp, pageDown, home, end, insert, delete
    /// A sequence the decoder recognised as one but does not name (function keys, mouse, Alt-…).
    case unknown
}
