import Foundation

/// What `pttd` needs to send wakes through APNs: the `apns` object of the config file. Without it, wakes go
/// over Local Push connections only.
///
/// ```json
/// "apns": { "keyFile": "/etc/pttd/AuthKey_ABC123DEFG.p8", "keyId": "ABC123DEFG", "teamId": "DEF123GHIJ",
///           "bundleId": "com.example.walkie", "environment": "production" }
/// ```
public struct APNsSettings: Sendable, Equatable, Codable {
    /// The `.p8` token-signing key downloaded from the Apple developer account (PKCS#8 PEM, P-256).
    public var keyFile: String
    /// The key's 10-character identifier (`kid` of the provider token).
    public var keyId: String
    /// The 10-character team identifier (`iss` of the provider token).
    public var teamId: String
    /// The app's bundle id; the topic is `<bundleId>.voip-ptt`.
    public var bundleId: String
    /// `production` (api.push.apple.com) or `sandbox` (api.sandbox.push.apple.com).
    public var environment: String
    /// Overrides the server picked by `environment`, e.g. `https://127.0.0.1:8443` (a relay or a test double).
    public var endpoint: String?
    /// A PEM file of certificates to trust for the APNs server instead of the system's roots.
    public var caFile: String?
    /// How long one send may take, connecting included, in milliseconds (default 5,000; 100 to 60,000). A wake
    /// later than that is worth little: the talker has gone on talking.
    public var timeoutMs: Int?

    /// Settings with every field given; `environment` defaults to `production`.
    public init(
        keyFile: String, keyId: String, teamId: String, bundleId: String, environment: String = "production",
        endpoint: String? = nil, caFile: String? = nil, timeoutMs: Int? = nil
    ) {
        self.keyFile = keyFile
        self.keyId = keyId
        self.teamId = teamId
        self.bundleId = bundleId
        self.environment = environment
        self.endpoint = endpoint
        self.caFile = caFile
        self.timeoutMs = timeoutMs
    }

    enum CodingKeys: String, CodingKey {
        case keyFile, keyId, teamId, bundleId, environment, endpoint, caFile, timeoutMs
    }

    /// Reads the `apns` object; `environment` defaults to `production`, `endpoint`, `caFile` and `timeoutMs` to none.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        keyFile = try c.decode(String.self, forKey: .keyFile)
        keyId = try c.decode(String.self, forKey: .keyId)
        teamId = try c.decode(String.self, forKey: .teamId)
        bundleId = try c.decode(String.self, forKey: .bundleId)
        environment = try c.decodeIfPresent(String.self, forKey: .environment) ?? "production"
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        timeoutMs = try c.decodeIfPresent(Int.self, forKey: .timeoutMs)
    }

    /// The `apns-topic` of pushtotalk notifications.
    public var topic: String { bundleId + ".voip-ptt" }

    /// The base URL requests go to (no trailing slash).
    public var baseURL: String {
        if let endpoint { return endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint }
        return environment == "sandbox" ? "https://api.sandbox.push.apple.com" : "https://api.push.apple.com"
    }

    /// Checks the values that can be checked without reading files; the message names the setting.
    public func validate() throws(APNsSettingsError) {
        func isIdentifier(_ s: String) -> Bool {
            s.count == 10 && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
        guard !keyFile.isEmpty else { throw .invalid("apns.keyFile must name the .p8 key file") }
        guard isIdentifier(keyId) else { throw .invalid("apns.keyId must be the 10-character key id, got '\(keyId)'") }
        guard isIdentifier(teamId) else {
            throw .invalid("apns.teamId must be the 10-character team id, got '\(teamId)'")
        }
        guard !bundleId.isEmpty, bundleId.utf8.count <= 200, !bundleId.contains(where: \.isWhitespace) else {
            throw .invalid("apns.bundleId must be the app's bundle id, got '\(bundleId)'")
        }
        guard ["production", "sandbox"].contains(environment) else {
            throw .invalid("apns.environment must be 'production' or 'sandbox', got '\(environment)'")
        }
        if let endpoint {
            guard let url = URL(string: endpoint), url.scheme == "https", url.host != nil else {
                throw .invalid("apns.endpoint must be an https:// URL, got '\(endpoint)'")
            }
        }
        if let timeoutMs, !(100...60_000).contains(timeoutMs) {
            throw .invalid("apns.timeoutMs must be 100 to 60000 milliseconds, got \(timeoutMs)")
        }
    }
}
