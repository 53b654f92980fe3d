import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PTTProtocol

/// One web connection before (or instead of) a WebSocket upgrade: ``HTTPRequestHandler`` collecting requests for
/// ``WebHTTPResponder``.
typealias WebHTTPHandler = HTTPRequestHandler<WebHTTPResponder>

/// Serves the page's files and redeems sign-in links (`POST /api/sign-in`). Bodies are at most 4 KiB; every answer
/// carries the security headers (``WebAssets/securityHeaders``).
struct WebHTTPResponder: HTTPResponder {
    static let maxBodyBytes = 4 * 1024

    /// Redeems a sign-in link's token, on the plane's loop.
    typealias Redeem = @Sendable (String) -> EventLoopFuture<SignInAnswer>

    var maxBodyBytes: Int { Self.maxBodyBytes }
    var listener: String { "web" }
    let redeem: Redeem
    let metrics: WebMetrics
    let logger: Logger

    func answer(_ request: HTTPRequest, on channel: any NIOCore.Channel) -> EventLoopFuture<HTTPAnswer> {
        metrics.requests.increment()
        let path = request.path
        switch (request.head.method, path) {
        case (.GET, _), (.HEAD, _):
            guard let asset = WebAssets.page[path] else {
                return channel.eventLoop.makeSucceededFuture(.webText(.notFound, "no such page: \(path)\n"))
            }
            return channel.eventLoop.makeSucceededFuture(
                .web(.ok, contentType: asset.contentType, body: asset.bytes))
        case (.POST, "/api/sign-in"):
            return signIn(request, on: channel)
        default:
            return channel.eventLoop.makeSucceededFuture(
                .webText(.methodNotAllowed, "\(request.head.method.rawValue) \(path) is not served here\n"))
        }
    }

    /// `POST /api/sign-in` `{"link": TOKEN}` → `{"user", "secret", "channels"}`: a credential of the link's user for
    /// this browser, or 401/410 with a message the page shows.
    private func signIn(_ request: HTTPRequest, on channel: any NIOCore.Channel) -> EventLoopFuture<HTTPAnswer> {
        struct Link: Decodable { var link: String }
        guard !request.bodyTooLarge, let link = try? JSONDecoder().decode(Link.self, from: Data(request.body)),
            (1...256).contains(link.link.utf8.count)
        else {
            return channel.eventLoop.makeSucceededFuture(
                .webJSON(.badRequest, ["error": "send {\"link\": \"<token from the link>\"}"]))
        }
        let metrics = self.metrics
        let logger = self.logger
        return redeem(link.link).hop(to: channel.eventLoop).map { answer -> HTTPAnswer in
            switch answer {
            case .signedIn(let user, let secret, let channels):
                metrics.signIn(.signedIn)
                logger.info("signed in with a link", metadata: ["user": "\(user)"])
                return .webJSON(.ok, SignedIn(user: user, secret: secret, channels: channels))
            case .refused(let outcome, let message):
                metrics.signIn(outcome)
                logger.notice(
                    "sign-in link refused",
                    metadata: [
                        "outcome": "\(outcome.rawValue)",
                        "remote": "\(channel.remoteAddress.map { "\($0)" } ?? "unknown")",
                    ])
                return .webJSON(outcome == .expired ? .gone : .unauthorized, ["error": message])
            }
        }.recover { error in .webJSON(.internalServerError, ["error": "\(error)"]) }
    }
}

/// The body of a good `POST /api/sign-in`.
struct SignedIn: Encodable {
    var user: String
    var secret: String
    var channels: [String]
}

/// What redeeming a sign-in link gave.
enum SignInAnswer: Sendable {
    /// A new credential for the link's user (the link is used up), and the channels the page offers it.
    case signedIn(user: String, secret: String, channels: [String])
    case refused(SignInOutcome, String)
}

/// The web listener's answers: each with the security headers.
extension HTTPAnswer {
    static func web(_ status: HTTPResponseStatus, contentType: String, body: [UInt8]) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: contentType, body: body, headers: WebAssets.securityHeaders)
    }

    static func webText(_ status: HTTPResponseStatus, _ text: String) -> HTTPAnswer {
        web(status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    static func webJSON(_ status: HTTPResponseStatus, _ fields: some Encodable) -> HTTPAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return web(status, contentType: "application/json", body: Array((try? encoder.encode(fields)) ?? Data()))
    }
}
