import Foundation

/// `GET /api/certificate` (`pttctl cert`): the TLS certificate clients are given, whose SHA-256 fingerprint they
/// pin on first use.
public struct CertificateReport: Codable, Sendable, Equatable {
    /// `self-signed` (made by pttd in its data directory) or `operator` (`tlsCertificate` in the config).
    public var source: CertificateSource
    /// SHA-256 of the certificate's DER, colon-separated uppercase hex: what clients pin.
    public var fingerprint: String
    public var subject: String
    public var issuer: String
    /// ISO 8601.
    public var notBefore: String
    public var notAfter: String
    /// Whole days until `notAfter`; negative once expired.
    public var daysLeft: Int
    /// DNS names and IP addresses the certificate is valid for.
    public var names: [String]
    /// Certificates sent in the handshake: the server's, then its chain.
    public var chainLength: Int
    public var certificateFile: String
    public var keyFile: String

    public init(
        source: CertificateSource, fingerprint: String, subject: String, issuer: String, notBefore: String,
        notAfter: String,
        daysLeft: Int, names: [String], chainLength: Int, certificateFile: String, keyFile: String
    ) {
        self.source = source
        self.fingerprint = fingerprint
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.daysLeft = daysLeft
        self.names = names
        self.chainLength = chainLength
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// `POST /api/reload` (`pttctl reload`, SIGHUP): what the reload applied and what waits for a restart.
public struct ReloadReport: Codable, Sendable, Equatable {
    /// The file read, if any (without one: built-in defaults and the command line).
    public var configFile: String?
    /// Settings changed in the running server (`floor.maxTalkTimeMs`, `logLevel`, …).
    public var applied: [String]
    /// Settings whose new value only a restart applies; the server goes on with the running values.
    public var needsRestart: [String]
    /// Whether clients are now given a different certificate (re-read from its files at every reload).
    public var certificateChanged: Bool
    /// The certificate given to clients from now on; nil without TLS.
    public var certificate: CertificateReport?

    public init(
        configFile: String?, applied: [String], needsRestart: [String], certificateChanged: Bool,
        certificate: CertificateReport?
    ) {
        self.configFile = configFile
        self.applied = applied
        self.needsRestart = needsRestart
        self.certificateChanged = certificateChanged
        self.certificate = certificate
    }
}
