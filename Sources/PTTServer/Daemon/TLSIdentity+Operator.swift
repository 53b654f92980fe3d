import Crypto
import Foundation
import PTTProtocol
import SwiftASN1
import X509

extension TLSIdentity {
    /// The identity the configuration asks for: the operator's files when `tlsCertificate` is set, otherwise the
    /// data directory's self-signed one (made on the first start). Errors name the setting at fault.
    static func resolve(
        _ configuration: ServerConfiguration, in directory: DataDirectory
    ) throws(ConfigurationError) -> (TLSIdentity, created: Bool) {
        if let certificate = configuration.tlsCertificate, let key = configuration.tlsKey {
            return (try load(certificateFile: certificate, keyFile: key), false)
        }
        do { return try loadOrCreate(in: directory) } catch {
            throw .invalid("the self-signed certificate in \(directory.path) cannot be used: \(error)")
        }
    }

    /// The operator's certificate (PEM: the server's first, then the chain, as a CA delivers a "full chain") and
    /// its private key (PEM: PKCS#8, SEC1 or RSA). The key must belong to the first certificate.
    public static func load(certificateFile: String, keyFile: String) throws(ConfigurationError) -> TLSIdentity {
        func read(_ path: String, _ setting: String) throws(ConfigurationError) -> String {
            do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw .invalid("\(setting): cannot read \(path): \(error.localizedDescription)")
            }
        }
        let certificatePEM = try read(certificateFile, "tlsCertificate")
        let keyPEM = try read(keyFile, "tlsKey")
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: certificatePEM).filter {
                $0.discriminator == "CERTIFICATE"
            }
        } catch {
            throw .invalid("tlsCertificate: \(certificateFile) is not PEM: \(error)")
        }
        guard let leaf = documents.first else {
            throw .invalid("tlsCertificate: \(certificateFile) holds no CERTIFICATE block")
        }
        let certificate: Certificate
        do { certificate = try Certificate(derEncoded: Array(leaf.derBytes)) } catch {
            throw .invalid("tlsCertificate: the first certificate in \(certificateFile) cannot be read: \(error)")
        }
        let key: Certificate.PrivateKey
        do { key = try Certificate.PrivateKey(pemEncoded: keyPEM) } catch {
            throw .invalid("tlsKey: \(keyFile) is not a PEM private key (PKCS#8, EC or RSA): \(error)")
        }
        guard key.publicKey == certificate.publicKey else {
            throw .invalid(
                "tlsKey: the key in \(keyFile) does not belong to the first certificate in \(certificateFile)")
        }
        var identity = TLSIdentity(certificateDER: Array(leaf.derBytes), privateKeyPEM: keyPEM)
        identity.chainDER = documents.dropFirst().map { Array($0.derBytes) }
        identity.certificateFile = certificateFile
        identity.keyFile = keyFile
        identity.isOperators = true
        do { _ = try identity.serverConfiguration() } catch {
            throw .invalid("tlsCertificate: OpenSSL refuses \(certificateFile) with \(keyFile): \(error)")
        }
        return identity
    }

    /// The expiry of the certificate, if it can be read.
    var notValidAfter: Date? { (try? Certificate(derEncoded: certificateDER))?.notValidAfter }

    /// What `pttctl cert` shows.
    func report(now: Date) -> CertificateReport {
        let certificate = try? Certificate(derEncoded: certificateDER)
        let notAfter = certificate?.notValidAfter ?? now
        var names: [String] = []
        if let alternatives = try? certificate?.extensions.subjectAlternativeNames {
            for name in alternatives {
                switch name {
                case .dnsName(let dns): names.append(dns)
                case .ipAddress(let bytes): names.append(Self.ipText(Array(bytes.bytes)))
                default: continue
                }
            }
        }
        return CertificateReport(
            source: isOperators ? .operator : .selfSigned, fingerprint: fingerprint,
            subject: certificate.map { "\($0.subject)" } ?? "?", issuer: certificate.map { "\($0.issuer)" } ?? "?",
            notBefore: (certificate?.notValidBefore ?? now).iso8601, notAfter: notAfter.iso8601,
            daysLeft: Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down)), names: names,
            chainLength: 1 + chainDER.count, certificateFile: certificateFile, keyFile: keyFile)
    }

    private static func ipText(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: bytes.count, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[min($0 + 1, bytes.count - 1)]), radix: 16)
        }.joined(separator: ":")
    }
}
