import Foundation

/// `POST /api/users/NAME/links` body: how long the link works (default 15 minutes, 60 s to 7 days).
public struct SignInLinkRequest: Codable, Sendable, Equatable {
    public var ttlSeconds: Int?
    public init(ttlSeconds: Int? = nil) { self.ttlSeconds = ttlSeconds }

    public static let defaultTTLSeconds = 15 * 60
    public static let ttlRange = 60...(7 * 24 * 3600)
}

/// A new sign-in link: opened once in a browser before `expiresAt`, it signs that browser in as `user`.
public struct SignInLinkResponse: Codable, Sendable, Equatable {
    public var user: String
    /// `https://HOST:PORT/#link=TOKEN`: HOST is the web listener's address, or this machine's first LAN address
    /// when it listens on all of them (`pttctl --web-host` prints another).
    public var url: String
    /// The one-time token alone (what follows `#link=`).
    public var token: String
    /// ISO 8601.
    public var expiresAt: String
    public init(user: String, url: String, token: String, expiresAt: String) {
        self.user = user
        self.url = url
        self.token = token
        self.expiresAt = expiresAt
    }
}
