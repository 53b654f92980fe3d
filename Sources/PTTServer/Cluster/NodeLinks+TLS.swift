import NIOSSL

/// The node links' TLS and addresses.
extension NodeLinks {
    /// The server and client contexts of a node's links: its certificate both ways, TLS 1.2 or newer, a peer
    /// certificate required; the peer's is checked against the fingerprint it registered (not against a CA).
    static func contexts(_ identity: TLSIdentity) throws -> (server: NIOSSLContext, client: NIOSSLContext) {
        var server = try identity.serverConfiguration()
        server.certificateVerification = .noHostnameVerification
        var client = TLSConfiguration.makeClientConfiguration()
        client.minimumTLSVersion = .tlsv12
        client.certificateVerification = .noHostnameVerification
        client.certificateChain = [.certificate(try NIOSSLCertificate(bytes: identity.certificateDER, format: .der))]
        client.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem))
        return (try NIOSSLContext(configuration: server), try NIOSSLContext(configuration: client))
    }

    /// `HOST:PORT` (`[V6]:PORT` too) split.
    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
