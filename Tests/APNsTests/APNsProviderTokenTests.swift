import APNsTestSupport
import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PTTProtocol
import TestSupport
import Testing

@testable import APNs

/// The provider token: signed as ES256 over the JOSE header and claims, checked by the double's own decoder.
@Suite struct APNsProviderTokenTests {
    @Test func itVerifiesWithThePublicKeyAndDecodesToTheRightHeaderAndClaims() throws {
        let key = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_760_000_000.75)
        let token = try APNsProviderToken.make(keyId: "KEY1234567", teamId: "TEAM123456", now: now, key: key)
        #expect(!token.jwt.contains("=") && !token.jwt.contains("+") && !token.jwt.contains("/"))
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_760_000_000))

        let decoded = try DecodedProviderToken(jwt: token.jwt, publicKey: key.publicKey)
        #expect(decoded.signatureIsValid)
        #expect(decoded.header == .init(alg: "ES256", kid: "KEY1234567", typ: nil))
        #expect(decoded.claims == .init(iss: "TEAM123456", iat: 1_760_000_000))
        #expect(
            token.jwt.split(separator: ".").first
                == Substring(APNsProviderToken.base64URL(Data(#"{"alg":"ES256","kid":"KEY1234567"}"#.utf8))))
    }

    @Test func aTamperedTokenOrAnotherKeyDoesNotVerify() throws {
        let key = P256.Signing.PrivateKey()
        let token = try APNsProviderToken.make(keyId: "KEY1234567", teamId: "TEAM123456", now: Date(), key: key)
        var parts = token.jwt.split(separator: ".").map(String.init)
        parts[1] = APNsProviderToken.base64URL(Data(#"{"iat":1,"iss":"TEAM123456"}"#.utf8))
        let tampered = try DecodedProviderToken(jwt: parts.joined(separator: "."), publicKey: key.publicKey)
        #expect(!tampered.signatureIsValid)
        let otherKey = try DecodedProviderToken(jwt: token.jwt, publicKey: P256.Signing.PrivateKey().publicKey)
        #expect(!otherKey.signatureIsValid)
    }

    @Test func theKeyFileMustExist() {
        let path = NSTemporaryDirectory() + "apns-missing-\(UUID().uuidString).p8"
        #expect(throws: APNsSettingsError.invalid("apns.keyFile '\(path)' does not exist")) {
            try APNsSigningKey.load(file: path)
        }
    }

    @Test func aGarbageKeyFileIsRefusedByName() throws {
        let path = try Self.write("this is not a key\n")
        let error = #expect(throws: APNsSettingsError.self) { try APNsSigningKey.load(file: path) }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("PKCS#8") == true)
    }

    @Test func aP384KeyIsRefusedByName() throws {
        let path = try Self.write(P384.Signing.PrivateKey().pemRepresentation)
        let error = #expect(throws: APNsSettingsError.self) { try APNsSigningKey.load(file: path) }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("P-256") == true)
    }

    @Test(.enabled(if: Tools.path("openssl") != nil)) func anRSAKeyIsRefusedByName() async throws {
        let path = NSTemporaryDirectory() + "apns-rsa-\(UUID().uuidString).p8"
        let openssl = try await ToolRun.run(
            try #require(Tools.path("openssl")),
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path])
        try #require(openssl.status == 0, "openssl: \(openssl.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("BEGIN PRIVATE KEY"))
        let error = #expect(throws: APNsSettingsError.self) { try APNsSigningKey.load(file: path) }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("P-256") == true)
    }

    @Test func aP256PKCS8KeyLoadsAndSigns() throws {
        let key = P256.Signing.PrivateKey()
        let path = try Self.write(key.pemRepresentation)
        let loaded = try APNsSigningKey.load(file: path)
        #expect(try loaded.privateKey().publicKey.rawRepresentation == key.publicKey.rawRepresentation)
    }

    static func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "apns-key-\(UUID().uuidString).p8"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
