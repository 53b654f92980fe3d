import Crypto
import Foundation
import NIOSSL
import PTTProtocol
import Testing
import X509

@testable import PTTKit

/// The TLS verification callback of the control client: the server's leaf certificate against known_hosts.
@Suite("Pin check during the TLS handshake")
struct PinCheckTests {
    /// A self-signed certificate, as pttd makes its own.
    static func certificate(_ commonName: String = "pttd") throws -> (certificate: NIOSSLCertificate, der: [UInt8]) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(), issuerPrivateKey: Certificate.PrivateKey(key))
        let der = try certificate.serializeAsPEM().derBytes
        return (try NIOSSLCertificate(bytes: der, format: .der), der)
    }

    static func knownHosts() -> (hosts: KnownHosts, directory: String) {
        let directory = NSTemporaryDirectory() + "ptt-pin-check-" + UUID().uuidString.prefix(12)
        return (KnownHosts(path: directory + "/known_hosts"), directory)
    }

    @Test("a new endpoint: the certificate is accepted, pinned now, and its fingerprint recorded")
    func firstUse() throws {
        let (hosts, directory) = Self.knownHosts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (certificate, der) = try Self.certificate()
        let check = PinCheck()
        #expect(check.verify([certificate], endpoint: "radio.local:7700", trust: hosts) == .certificateVerified)
        #expect(check.pinnedNow)
        #expect(check.mismatch == nil)
        #expect(check.fingerprint == Fingerprint.sha256(der))
        #expect(try hosts.verdict(for: "radio.local:7700", fingerprint: Fingerprint.sha256(der)) == .trusted)
    }

    @Test("the pinned certificate again: accepted, not pinned anew")
    func sameAgain() throws {
        let (hosts, directory) = Self.knownHosts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (certificate, _) = try Self.certificate()
        _ = PinCheck().verify([certificate], endpoint: "radio.local:7700", trust: hosts)
        let check = PinCheck()
        #expect(check.verify([certificate], endpoint: "radio.local:7700", trust: hosts) == .certificateVerified)
        #expect(check.pinnedNow == false)
        #expect(check.mismatch == nil)
    }

    @Test("another certificate for a pinned endpoint fails the handshake and tells both fingerprints")
    func changed() throws {
        let (hosts, directory) = Self.knownHosts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (pinned, pinnedDER) = try Self.certificate()
        let (impostor, impostorDER) = try Self.certificate()
        _ = PinCheck().verify([pinned], endpoint: "radio.local:7700", trust: hosts)
        let check = PinCheck()
        #expect(check.verify([impostor], endpoint: "radio.local:7700", trust: hosts) == .failed)
        let mismatch = try #require(check.mismatch)
        #expect(mismatch.expected == Fingerprint.sha256(pinnedDER))
        #expect(mismatch.actual == Fingerprint.sha256(impostorDER))
        #expect(check.pinnedNow == false)
        // The same certificate on another endpoint is a first use there.
        #expect(PinCheck().verify([impostor], endpoint: "radio.local:7701", trust: hosts) == .certificateVerified)
    }

    @Test("only the leaf (first) certificate of the chain is pinned")
    func leafOnly() throws {
        let (hosts, directory) = Self.knownHosts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (leaf, leafDER) = try Self.certificate("leaf")
        let (issuer, _) = try Self.certificate("issuer")
        let check = PinCheck()
        #expect(check.verify([leaf, issuer], endpoint: "radio.local:7700", trust: hosts) == .certificateVerified)
        #expect(check.fingerprint == Fingerprint.sha256(leafDER))
        #expect(PinCheck().verify([leaf], endpoint: "radio.local:7700", trust: hosts) == .certificateVerified)
    }

    @Test("no certificate at all fails")
    func noCertificate() throws {
        let (hosts, directory) = Self.knownHosts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let check = PinCheck()
        #expect(check.verify([], endpoint: "radio.local:7700", trust: hosts) == .failed)
        #expect(check.fingerprint == nil)
        #expect(check.pinnedNow == false)
    }

    @Test("a known_hosts that cannot be written fails the handshake instead of trusting unpinned")
    func unwritableKnownHosts() throws {
        let directory = NSTemporaryDirectory() + "ptt-pin-check-" + UUID().uuidString.prefix(12)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "a file, not a directory".write(toFile: directory + "/blocked", atomically: true, encoding: .utf8)
        let hosts = KnownHosts(path: directory + "/blocked/known_hosts")
        let (certificate, der) = try Self.certificate()
        let check = PinCheck()
        #expect(check.verify([certificate], endpoint: "radio.local:7700", trust: hosts) == .failed)
        #expect(check.pinnedNow == false)
        #expect(check.fingerprint == Fingerprint.sha256(der))
        // The client reports why, instead of "the server closed the connection".
        guard case .unwritable(let path, _) = try #require(check.failure) else {
            Issue.record("expected unwritable, got \(String(describing: check.failure))")
            return
        }
        #expect(path == directory + "/blocked/known_hosts")
    }

    @Test("a known_hosts that is not text fails the handshake and says which file")
    func unreadableKnownHosts() throws {
        let (hosts, directory) = Self.knownHosts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data([0xFF, 0xFE, 0x00, 0x0A]).write(to: URL(fileURLWithPath: hosts.path))
        let (certificate, _) = try Self.certificate()
        let check = PinCheck()
        #expect(check.verify([certificate], endpoint: "radio.local:7700", trust: hosts) == .failed)
        guard case .unreadable(let path, _) = try #require(check.failure) else {
            Issue.record("expected unreadable, got \(String(describing: check.failure))")
            return
        }
        #expect(path == hosts.path)
        #expect(check.failure?.description.contains("fix or remove it") == true)
    }
}
