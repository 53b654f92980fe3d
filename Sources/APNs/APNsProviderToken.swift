import Crypto
import Foundation

/// The provider authentication token APNs wants in `authorization: bearer <jwt>`: a JWT signed with the
/// team's `.p8` key (ES256), header `{"alg":"ES256","kid":<keyId>}`, claims `{"iss":<teamId>,"iat":<seconds>}`.
///
/// APNs accepts a token for an hour after `iat` and answers `429 TooManyProviderTokenUpdates` to a provider
/// that makes new ones too often, so one token is shared by all requests (see `APNsTokenCache`).
struct APNsProviderToken: Sendable, Equatable {
    /// The compact JWT: `base64url(header).base64url(claims).base64url(r||s)`, without padding.
    let jwt: String
    /// The `iat` claim: when the token was made, in whole seconds.
    let issuedAt: Date

    /// Signs a new token issued at `now` (rounded down to the second).
    static func make(keyId: String, teamId: String, now: Date, key: P256.Signing.PrivateKey) throws -> APNsProviderToken
    {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(Header(alg: "ES256", kid: keyId))
        let claims = try encoder.encode(Claims(iss: teamId, iat: seconds))
        let signingInput = Self.base64URL(header) + "." + Self.base64URL(claims)
        // The JWS form of an ECDSA signature is the raw 64-byte r||s, not DER.
        let signature = try key.signature(for: Data(signingInput.utf8))
        return APNsProviderToken(
            jwt: signingInput + "." + Self.base64URL(signature.rawRepresentation),
            issuedAt: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// How long ago the token was made (negative if `now` is before `iat`, e.g. the clock went back).
    func age(now: Date) -> TimeInterval { now.timeIntervalSince(issuedAt) }

    /// The token's JOSE header.
    struct Header: Codable, Equatable {
        var alg: String
        var kid: String
    }

    /// The token's claims.
    struct Claims: Codable, Equatable {
        var iss: String
        var iat: Int64
    }

    /// Base64url without padding (RFC 7515 §2).
    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The `.p8` token-signing key named by `apns.keyFile`, kept as raw bytes so it can be shared across threads
/// (swift-crypto's key types are not `Sendable`).
struct APNsSigningKey: Sendable {
    /// The P-256 private scalar.
    let rawRepresentation: Data

    init(_ key: P256.Signing.PrivateKey) { rawRepresentation = key.rawRepresentation }

    /// The key, for signing.
    func privateKey() throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    }

    /// Loads a P-256 private key from a PKCS#8 PEM file (`-----BEGIN PRIVATE KEY-----`), which is what the Apple
    /// developer account hands out. The error names the setting and the file.
    static func load(file path: String) throws(APNsSettingsError) -> APNsSigningKey {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .invalid("apns.keyFile '\(path)' does not exist")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .invalid("apns.keyFile '\(path)' cannot be read as text: \(error.localizedDescription)")
        }
        guard text.contains("-----BEGIN PRIVATE KEY-----") else {
            throw .invalid(
                "apns.keyFile '\(path)' is not a PKCS#8 PEM private key (expected '-----BEGIN PRIVATE KEY-----', "
                    + "as in the AuthKey_<keyId>.p8 file from the Apple developer account)")
        }
        do {
            return APNsSigningKey(try P256.Signing.PrivateKey(pemRepresentation: text))
        } catch {
            throw .invalid("apns.keyFile '\(path)' is not a P-256 (ES256) private key: \(error)")
        }
    }
}
