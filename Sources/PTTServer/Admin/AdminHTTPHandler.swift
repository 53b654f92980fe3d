import Logging
import NIOCore
import NIOHTTP1
import PTTProtocol

/// One admin HTTP connection: collects a request (body at most 64 KiB), checks the bearer token,
/// routes it on the plane's event loop and writes the answer. The operator console's files
/// (`/console`, `WebAssets.console`) are served without the token.
package final class AdminHTTPHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: state is touched only on the connection's event loop.
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    static let maxBodyBytes = 64 * 1024

    private let router: AdminRouter
    private let token: String
    private let metrics: ServerMetrics
    private let logger: Logger
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    package init(router: AdminRouter, token: String, metrics: ServerMetrics, logger: Logger) {
        self.router = router; self.token = token; self.metrics = metrics; self.logger = logger
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
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
        metrics.admin.requests.increment()
        let keepAlive = head.isKeepAlive
        if tooLarge {
            return write(context: context, .error(AdminError(.tooLarge, "request body over 64 KiB")), keepAlive: false)
        }
        // The operator console's files carry no data (it asks for the token and sends it with each call).
        if head.method == .GET, let asset = WebAssets.console[head.uri] {
            let page = AdminResponse(
                status: .ok, contentType: asset.contentType, body: asset.bytes, headers: WebAssets.securityHeaders)
            return write(context: context, page, keepAlive: keepAlive)
        }
        guard authorized(head) else {
            metrics.admin.unauthorized.increment()
            logger.notice("admin request without the right token", metadata: ["path": "\(head.uri)"])
            return write(
                context: context,
                .error(
                    AdminError(
                        .unauthorized, "missing or wrong admin token (Authorization: Bearer <data dir>/admin-token)")),
                keepAlive: keepAlive)
        }
        let router = self.router
        let body = self.body
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        router.plane.eventLoop.flatSubmit {
            router.respond(method: head.method, path: head.uri, body: body)
        }.hop(to: context.eventLoop).whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .success(let response): handler.write(context: context, response, keepAlive: keepAlive)
            case .failure(let error):
                handler.write(context: context, .error(AdminError(.internal, "\(error)")), keepAlive: false)
            }
        }
    }

    private func authorized(_ head: HTTPRequestHead) -> Bool {
        guard let value = head.headers.first(name: "authorization") else { return false }
        let expected = Array("Bearer \(token)".utf8)
        let given = Array(value.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func write(context: ChannelHandlerContext, _ response: AdminResponse, keepAlive: Bool) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: response.contentType)
        headers.add(name: "content-length", value: "\(response.body.count)")
        headers.add(name: "connection", value: keepAlive ? "keep-alive" : "close")
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))),
            promise: nil)
        if !response.body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))),
                promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        context.triggerUserOutboundEvent(AdminResponseSent(), promise: nil)
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.debug("admin connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }
}
