import Crypto
import Foundation
import PTTProtocol
import PTTStore

/// Sign-in links for the browser walkie-talkie, and the credentials they give.
///
/// A link carries a random 192-bit token; only its SHA-256 is stored, with its user and deadline. Opening the
/// link once (`POST /api/sign-in` on the web listener) deletes it and gives that browser a credential of its
/// own: a new secret for the same user, stored hashed like the user's own, so signing in a laptop does not
/// change the secret a phone or `ptt` already uses. `hello` accepts the user's secret or any of its browser
/// credentials (at most ``keepPerUser``; the oldest go). Removing the user removes both.
final class SignInLinks {
    unowned let plane: ControlPlane
    /// Browser credentials by user, checked at `hello`.
    private var credentials: [String: [WebCredential]] = [:]
    /// `https://HOST:PORT` of the web listener, once bound.
    var webBase: String?

    static let keepPerUser = 20

    init(plane: ControlPlane) { self.plane = plane }

    func restore(_ stored: [WebCredential]) {
        credentials = Dictionary(grouping: stored, by: \.user)
    }

    /// Whether `secret` is one of `user`'s browser credentials.
    func verify(user: String, secret: String) -> Bool {
        guard let list = credentials[user] else { return false }
        var found = false
        for credential in list {
            found = SecretHasher.verify(secret: secret, salt: credential.salt, expected: credential.secretHash) || found
        }
        return found
    }

    /// The user is gone (its rows went with it, by the foreign keys).
    func userRemoved(_ name: String) { credentials[name] = nil }

    /// `POST /api/users/NAME/links`.
    func make(user: String, _ request: SignInLinkRequest) throws(AdminError) -> SignInLinkResponse {
        guard plane.directory.users[user] != nil else { throw AdminError(.notFound, "no user '\(user)'") }
        let ttl = request.ttlSeconds ?? SignInLinkRequest.defaultTTLSeconds
        guard SignInLinkRequest.ttlRange.contains(ttl) else {
            throw AdminError(
                .badRequest,
                "ttlSeconds must be \(SignInLinkRequest.ttlRange.lowerBound)...\(SignInLinkRequest.ttlRange.upperBound)"
            )
        }
        guard let base = webBase else {
            throw AdminError(
                .badRequest, "the web listener is off (config \"web\": false): there is nothing to sign in to")
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        let now = plane.context.wallClock.now()
        let link = StoredSignInLink(
            tokenHash: Self.hash(token), user: user, createdAt: now, expiresAt: now.addingTimeInterval(Double(ttl)))
        do { try plane.store.insertSignInLink(link) } catch {
            throw AdminError(.internal, "could not store the link: \(plane.store.describe(error))")
        }
        plane.logger.info("sign-in link made", metadata: ["user": "\(user)", "ttlSeconds": "\(ttl)"])
        return SignInLinkResponse(
            user: user, url: "\(base)/#link=\(token)", token: token, expiresAt: link.expiresAt.iso8601)
    }

    /// A browser presents a link's token: used up either way; a credential if it had not expired.
    func redeem(_ token: String) -> SignInAnswer {
        let now = plane.context.wallClock.now()
        let secret = SecretHasher.generateSecret()
        let result: (link: StoredSignInLink, credential: WebCredential?)?
        do {
            result = try plane.store.redeemSignInLink(
                tokenHash: Self.hash(token), now: now,
                credential: { user in
                    let salt = SecretHasher.makeSalt()
                    return WebCredential(
                        user: user, secretHash: SecretHasher.hash(secret: secret, salt: salt), salt: salt,
                        createdAt: now)
                }, keep: Self.keepPerUser)
        } catch {
            plane.logger.error("cannot redeem a sign-in link", metadata: ["error": "\(plane.store.describe(error))"])
            return .refused(.unknown, "the server could not store the sign-in; try again")
        }
        guard let result else {
            return .refused(.unknown, "this sign-in link was used already or is not valid: ask for a new one")
        }
        guard let credential = result.credential else {
            return .refused(
                .expired, "this sign-in link expired at \(result.link.expiresAt.iso8601): ask for a new one")
        }
        var list = credentials[credential.user, default: []]
        list.append(credential)
        credentials[credential.user] = Array(list.suffix(Self.keepPerUser))
        return .signedIn(user: credential.user, secret: secret, channels: channels(offeredTo: credential.user))
    }

    static func hash(_ token: String) -> [UInt8] { Array(SHA256.hash(data: Array(token.utf8))) }
}
