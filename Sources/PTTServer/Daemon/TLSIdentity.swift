import Crypto
import Foundation
import NIOSSL
import PTTProtocol
import SwiftASN1
import X509

/// The server's TLS certificate and key: the operator's (`tlsCertificate`, `tlsKey`), or created self-signed on
/// first start and kept in the data directory; identified to clients by its SHA-256 fingerprint (clients pin it on
/// first use).
public struct TLSIdentity: Sendable {
    public let certificateDER: [UInt8]
    public let privateKeyPEM: String
    /// The certificates that vouch for it, sent after it in the handshake (an operator's chain); empty when
    /// self-signed.
    public var chainDER: [[UInt8]] = []
    /// Where it was read from.
    public var certificateFile = ""
    public var keyFile = ""
    /// Whether it is the operator's (from the config) rather than pttd's self-signed one.
    public var isOperators = false
    /// SHA-256 of the certificate's DER, as colon-separated uppercase hex.
    public var fingerprint: String { Fingerprint.sha256(certificateDER) }

    /// Loads the identity from `directory`, creating it first if either file is missing.
    /// - Returns: the identity and whether it was created now.
    public static func loadOrCreate(
        in directory: DataDirectory, commonName: String = "pttd"
    ) throws -> (TLSIdentity, created: Bool) {
        let fm = FileManager.default
        if fm.fileExists(atPath: directory.certificate), fm.fileExists(atPath: directory.privateKey) {
            let certPEM = try String(contentsOfFile: directory.certificate, encoding: .utf8)
            let keyPEM = try String(contentsOfFile: directory.privateKey, encoding: .utf8)
            let document = try PEMDocument(pemString: certPEM)
            var identity = TLSIdentity(certificateDER: Array(document.derBytes), privateKeyPEM: keyPEM)
            identity.certificateFile = directory.certificate
            identity.keyFile = directory.privateKey
            return (identity, false)
        }
        var identity = try makeSelfSigned(commonName: commonName)
        identity.certificateFile = directory.certificate
        identity.keyFile = directory.privateKey
        try directory.writePrivate(Data(identity.privateKeyPEM.utf8), to: directory.privateKey)
        let certPEM = PEMDocument(type: "CERTIFICATE", derBytes: identity.certificateDER).pemString
        try directory.writePrivate(Data(certPEM.utf8), to: directory.certificate)
        return (identity, true)
    }

    /// A new P-256 self-signed certificate valid for ten years.
    public static func makeSelfSigned(commonName: String) throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(10 * 365 * 24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName(commonName), .dnsName("localhost")])
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return TLSIdentity(certificateDER: serializer.serializedBytes, privateKeyPEM: key.pemRepresentation)
    }

    /// The NIOSSL server configuration for this identity (TLS 1.2 or newer).
    public func serverConfiguration() throws -> TLSConfiguration {
        let chain = try ([certificateDER] + chainDER).map { try NIOSSLCertificate(bytes: $0, format: .der) }
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
