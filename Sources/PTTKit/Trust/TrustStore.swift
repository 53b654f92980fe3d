/// Decides whether a server's TLS certificate may speak for an endpoint.
///
/// pttd serves a self-signed certificate: there is no certificate authority on a ship's or a hospital's network.
/// A client trusts the certificate's SHA-256 fingerprint instead. ``KnownHosts`` pins it on first use, like ssh's
/// `known_hosts`; ``PinnedFingerprints`` trusts only the fingerprints it is given (for example from a managed
/// app configuration, or the Local Push extension's `providerConfiguration`). An app may write its own store (the
/// Keychain, say) by conforming to this protocol.
///
/// The client calls ``verdict(for:fingerprint:)`` during each TLS handshake, on a NIO event loop: it must not
/// block for long.
public protocol TrustStore: Sendable {
    /// Whether `fingerprint` (64 lowercase hex digits, the SHA-256 of the leaf certificate's DER) is trusted for
    /// `endpoint` (`HOST:PORT`, as ``ServerEndpoint/description`` spells it). Throws if the store cannot be read
    /// or written; the handshake then fails.
    func verdict(for endpoint: String, fingerprint: String) throws -> TrustVerdict

    /// Where the pins are kept, for error messages (a file's path, "the app's configuration", ...).
    var location: String { get }
}

/// What a ``TrustStore`` says of a certificate.
public enum TrustVerdict: Equatable, Sendable {
    /// The fingerprint is the one trusted for this endpoint.
    case trusted
    /// The endpoint was new and the fingerprint is now pinned for it (trust on first use).
    case pinnedNow
    /// Another fingerprint is trusted for this endpoint: someone may be impersonating the server.
    case changed(expected: String)
}

/// Trusts exactly the fingerprints it is given, for any endpoint, and pins nothing.
public struct PinnedFingerprints: TrustStore {
    /// The trusted SHA-256 fingerprints, lowercase hex.
    public let fingerprints: Set<String>

    /// Trusts `fingerprints` (hex; case and `:` separators are ignored).
    public init(_ fingerprints: [String]) {
        self.fingerprints = Set(fingerprints.map { $0.lowercased().filter { $0 != ":" } })
    }

    public func verdict(for endpoint: String, fingerprint: String) throws -> TrustVerdict {
        fingerprints.contains(fingerprint)
            ? .trusted : .changed(expected: fingerprints.sorted().joined(separator: " or "))
    }

    public var location: String { "the pinned fingerprints the app was configured with" }
}
