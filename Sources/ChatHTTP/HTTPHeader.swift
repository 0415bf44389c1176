/// One response header beyond the content type and `Allow` (``HTTPResponse/headers``).
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
