/// Where the TLS certificate clients are given comes from: `source` in `GET /api/certificate`.
public enum CertificateSource: WireValue {
    /// `self-signed`: made by pttd in its data directory.
    case selfSigned
    /// `operator`: the config's `tlsCertificate`.
    case `operator`
    /// A value from a newer server.
    case unknown(String)

    public static let known: [CertificateSource] = [.selfSigned, .operator]

    public var rawValue: String {
        switch self {
        case .selfSigned: "self-signed"
        case .operator: "operator"
        case .unknown(let value): value
        }
    }
}
