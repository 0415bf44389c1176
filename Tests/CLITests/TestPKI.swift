import Foundation

/// A throwaway certificate authority and a server certificate signed by it, made with the `openssl`
/// CLI in `dir`: `ca.pem`, `server.pem`, `server.key`.
enum TestPKI {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// - Parameter subjectAltName: the names the certificate is for (OpenSSL syntax).
    static func make(in dir: String, subjectAltName: String = "DNS:localhost,IP:127.0.0.1") throws {
        let run = try CLI.shell(
            """
            cd '\(dir)' && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout ca.key -out ca.pem -subj "/CN=chatcap test CA" \
            && openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=chatcap test server" \
            && printf "subjectAltName=\(subjectAltName)\\n" > ext.cnf \
            && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile ext.cnf
            """)
        guard run.status == 0 else { throw Failure(description: "openssl failed: \(run.stderr)") }
    }
}
