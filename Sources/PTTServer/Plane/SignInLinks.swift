import Crypto
import Foundation
import NIOCore
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
    func make(user: String, _ request: SignInLinkRequest) -> EventLoopFuture<SignInLinkResponse> {
        let promise = plane.eventLoop.makePromise(of: SignInLinkResponse.self)
        // In turn with the directory's writes: the link is stored for the user as stored.
        plane.writes.inTurn(refused: { promise.fail(AdminError(.unavailable, $0.description)) }) { [self] in
            do throws(AdminError) {
                let (link, answer) = try plan(user: user, request)
                return plane.storage.run { try $0.insertSignInLink(link) }.map { [self] in
                    plane.logger.info(
                        "sign-in link made", metadata: ["user": "\(user)", "expires": "\(link.expiresAt.iso8601)"])
                    promise.succeed(answer)
                }.recover { [self] error in
                    promise.fail(AdminError(.internal, "could not store the link: \(plane.storage.describe(error))"))
                }
            } catch {
                promise.fail(error)
                return plane.eventLoop.makeSucceededVoidFuture()
            }
        }
        return promise.futureResult
    }

    /// A new link for `user` and the answer that gives it, or why not.
    private func plan(
        user: String, _ request: SignInLinkRequest
    ) throws(AdminError) -> (StoredSignInLink, SignInLinkResponse) {
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
        return (
            link,
            SignInLinkResponse(
                user: user, url: "\(base)/#link=\(token)", token: token, expiresAt: link.expiresAt.iso8601)
        )
    }

    /// A browser presents a link's token: used up either way; a credential if it had not expired. Stored in turn
    /// with the directory's writes, on the storage's thread.
    func redeem(_ token: String) -> EventLoopFuture<SignInAnswer> {
        let promise = plane.eventLoop.makePromise(of: SignInAnswer.self)
        let now = plane.context.wallClock.now()
        let secret = SecretHasher.generateSecret()
        let tokenHash = Self.hash(token)
        let keep = Self.keepPerUser
        let busy = SignInAnswer.refused(.unknown, "the server is busy: try again in a moment")
        plane.writes.inTurn(refused: { _ in promise.succeed(busy) }) { [self] in
            plane.storage.run { store in
                try store.redeemSignInLink(
                    tokenHash: tokenHash, now: now,
                    credential: { user in
                        let salt = SecretHasher.makeSalt()
                        return WebCredential(
                            user: user, secretHash: SecretHasher.hash(secret: secret, salt: salt), salt: salt,
                            createdAt: now)
                    }, keep: keep)
            }.map { [self] result in
                promise.succeed(redeemed(result, secret: secret))
            }.recover { [self] error in
                plane.logger.error(
                    "cannot redeem a sign-in link", metadata: ["error": "\(plane.storage.describe(error))"])
                promise.succeed(.refused(.unknown, "the server could not store the sign-in; try again"))
            }
        }
        return promise.futureResult
    }

    /// What a browser is told once its link is used up: signed in with `secret`, or why not.
    private func redeemed(
        _ result: (link: StoredSignInLink, credential: WebCredential?)?, secret: String
    ) -> SignInAnswer {
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
