/// How a TLS client checks the server: against the system's trusted CAs (the default), a given CA
/// file, or not at all.
public struct TLSConfiguration: Sendable, Equatable {
    /// A PEM file of trusted CA certificates that replaces the system's CA store (as `curl --cacert`
    /// does). `nil`: the system store (`SSL_CTX_set_default_verify_paths`).
    public var caFile: String?
    /// Skip certificate and name verification. For tests against a self-signed server only; the
    /// caller must print ``insecureWarning`` when it is on.
    public var insecure: Bool

    public init(caFile: String? = nil, insecure: Bool = false) {
        self.caFile = caFile
        self.insecure = insecure
    }

    /// Verify against the system store, check the host name.
    public static let `default` = TLSConfiguration()

    /// What a program should print (to stderr) when ``insecure`` is on.
    public static let insecureWarning =
        "WARNING: TLS certificate verification is OFF (--insecure). Anyone on the network path can read and "
        + "change this connection, including the login token. Use it only for testing."
}
