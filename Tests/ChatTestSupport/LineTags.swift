/// Tests read tags of whole IRC lines as text (what a command printed, what a file holds): the
/// value of one tag, without parsing the line. One definition for every suite.
public enum LineTags: Sendable {
    /// The raw value of tag `key` in `line`'s tag section (`""` for a tag without a value), or `nil`
    /// when the line has no tags or not that one. Escapes are not undone.
    public static func value(_ key: String, in line: Substring) -> Substring? {
        guard line.hasPrefix("@") else { return nil }
        let section = line.dropFirst().prefix { $0 != " " }
        for tag in section.split(separator: ";") {
            let name = tag.prefix { $0 != "=" }
            guard name == key else { continue }
            return name.endIndex == tag.endIndex ? tag[tag.endIndex...] : tag[tag.index(after: name.endIndex)...]
        }
        return nil
    }

    /// ``value(_:in:)`` of a `String` line, as a `String`.
    public static func value(_ key: String, in line: String) -> String? {
        value(key, in: Substring(line)).map(String.init)
    }
}
