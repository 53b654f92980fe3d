import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PTTProtocol

/// One web connection before (or instead of) a WebSocket upgrade: serves the page's files and redeems
/// sign-in links (`POST /api/sign-in`). Bodies are at most 4 KiB; each answered request is reported to
/// ``AdminDeadlines`` in front, which closes idle and slow connections.
final class WebHTTPHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    // @unchecked: state is touched only on the connection's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let maxBodyBytes = 4 * 1024

    /// Redeems a sign-in link's token, on the plane's loop.
    typealias Redeem = @Sendable (String) -> EventLoopFuture<SignInAnswer>

    private let redeem: Redeem
    private let metrics: WebMetrics
    private let logger: Logger
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    init(redeem: @escaping Redeem, metrics: WebMetrics, logger: Logger) {
        self.redeem = redeem; self.metrics = metrics; self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: true)
            tooLarge = false
        case .body(var chunk):
            if body.count + chunk.readableBytes > Self.maxBodyBytes { tooLarge = true; return }
            body += chunk.readBytes(length: chunk.readableBytes) ?? []
        case .end:
            guard let head else { return }
            self.head = nil
            respond(context: context, head: head)
        }
    }

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead) {
        metrics.requests.increment()
        let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
        switch (head.method, path) {
        case (.GET, _), (.HEAD, _):
            guard let asset = WebAssets.page[path] else {
                return write(context: context, head: head, .text(.notFound, "no such page: \(path)\n"))
            }
            write(
                context: context, head: head, WebAnswer(status: .ok, contentType: asset.contentType, body: asset.bytes))
        case (.POST, "/api/sign-in"):
            signIn(context: context, head: head)
        default:
            write(
                context: context, head: head,
                .text(.methodNotAllowed, "\(head.method.rawValue) \(path) is not served here\n"))
        }
    }

    /// `POST /api/sign-in` `{"link": TOKEN}` → `{"user", "secret", "channels"}`: a credential of the link's user for this
    /// browser, or 401/410 with a message the page shows.
    private func signIn(context: ChannelHandlerContext, head: HTTPRequestHead) {
        struct Request: Decodable { var link: String }
        guard !tooLarge, let request = try? JSONDecoder().decode(Request.self, from: Data(body)),
            (1...256).contains(request.link.utf8.count)
        else {
            return write(
                context: context, head: head,
                .json(.badRequest, ["error": "send {\"link\": \"<token from the link>\"}"]))
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        redeem(request.link).hop(to: context.eventLoop).whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .success(.signedIn(let user, let secret, let channels)):
                handler.metrics.signIn(.signedIn)
                handler.logger.info("signed in with a link", metadata: ["user": "\(user)"])
                handler.write(
                    context: context, head: head, .json(.ok, SignedIn(user: user, secret: secret, channels: channels)))
            case .success(.refused(let outcome, let message)):
                handler.metrics.signIn(outcome)
                handler.logger.notice(
                    "sign-in link refused",
                    metadata: [
                        "outcome": "\(outcome.rawValue)",
                        "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "unknown")",
                    ])
                let status: HTTPResponseStatus = outcome == .expired ? .gone : .unauthorized
                handler.write(context: context, head: head, .json(status, ["error": message]))
            case .failure(let error):
                handler.write(context: context, head: head, .json(.internalServerError, ["error": "\(error)"]))
            }
        }
    }

    private func write(context: ChannelHandlerContext, head: HTTPRequestHead, _ answer: WebAnswer) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: answer.contentType)
        headers.add(name: "content-length", value: "\(answer.body.count)")
        for (name, value) in WebAssets.securityHeaders { headers.add(name: name, value: value) }
        let keepAlive = head.isKeepAlive && !tooLarge
        headers.add(name: "connection", value: keepAlive ? "keep-alive" : "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))),
            promise: nil)
        if head.method != .HEAD, !answer.body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        context.triggerUserOutboundEvent(AdminResponseSent(), promise: nil)
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.debug("web connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
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

/// A web answer: status, content type and body.
struct WebAnswer {
    var status: HTTPResponseStatus
    var contentType: String
    var body: [UInt8]

    static func text(_ status: HTTPResponseStatus, _ text: String) -> WebAnswer {
        WebAnswer(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    static func json(_ status: HTTPResponseStatus, _ fields: some Encodable) -> WebAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return WebAnswer(
            status: status, contentType: "application/json", body: Array((try? encoder.encode(fields)) ?? Data()))
    }
}
