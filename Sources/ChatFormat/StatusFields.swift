/// A status line's fields fitted to a width: the one rule of capture's and load's status lines.
public enum StatusFields: Sendable {
    /// The first field always, then each following field that still fits, two spaces apart (a field
    /// that does not fit is left out, a shorter one after it may still be shown); cut to `width`
    /// characters if even the first does not fit.
    ///
    /// - Precondition: `fields` is not empty, `width >= 1`.
    /// - Complexity: O(total length of the fields).
    public static func fit(_ fields: [String], width: Int) -> String {
        precondition(!fields.isEmpty && width >= 1, "a status line needs a field and a column")
        let text = fields.dropFirst().reduce(fields[0]) { text, field in
            text.count + 2 + field.count <= width ? text + "  " + field : text
        }
        return text.count > width ? String(text.prefix(width)) : text
    }
}
