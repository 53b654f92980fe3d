import Logging
import NIOCore
import NIOHTTP1
import PTTProtocol

/// One admin HTTP connection: ``HTTPRequestHandler`` collecting requests for ``AdminHTTPResponder``.
package typealias AdminHTTPHandler = HTTPRequestHandler<AdminHTTPResponder>

extension HTTPRequestHandler where Responder == AdminHTTPResponder {
    /// An admin connection answered by `router`, with `token` as the bearer token every API request must carry.
    package convenience init(router: AdminRouter, token: String, metrics: ServerMetrics, logger: Logger) {
        self.init(AdminHTTPResponder(router: router, token: token, metrics: metrics, logger: logger), logger: logger)
    }
}

/// Answers admin requests (bodies at most 64 KiB): a body over the limit gets `413` before anything else, the
/// operator console's files (`/console`, `WebAssets.console`) are served without the token, every other request
/// needs the bearer token and is routed on the plane's event loop.
package struct AdminHTTPResponder: HTTPResponder {
    static let maxBodyBytes = 64 * 1024

    package var maxBodyBytes: Int { Self.maxBodyBytes }
    package var listener: String { "admin" }
    let router: AdminRouter
    let token: String
    let metrics: ServerMetrics
    let logger: Logger

    package func answer(_ request: HTTPRequest, on channel: any NIOCore.Channel) -> EventLoopFuture<HTTPAnswer> {
        metrics.admin.requests.increment()
        let head = request.head
        if request.bodyTooLarge {
            return channel.eventLoop.makeSucceededFuture(
                HTTPAnswer(.error(AdminError(.tooLarge, "request body over 64 KiB"))))
        }
        // The operator console's files carry no data (it asks for the token and sends it with each call).
        if head.method == .GET, let asset = WebAssets.console[head.uri] {
            return channel.eventLoop.makeSucceededFuture(
                HTTPAnswer(
                    status: .ok, contentType: asset.contentType, body: asset.bytes, headers: WebAssets.securityHeaders))
        }
        guard authorized(head) else {
            metrics.admin.unauthorized.increment()
            logger.notice("admin request without the right token", metadata: ["path": "\(head.uri)"])
            return channel.eventLoop.makeSucceededFuture(
                HTTPAnswer(
                    .error(
                        AdminError(
                            .unauthorized, "missing or wrong admin token (Authorization: Bearer <data dir>/admin-token)"
                        ))))
        }
        let router = self.router
        let body = request.body
        return router.plane.eventLoop.flatSubmit {
            router.respond(method: head.method, path: head.uri, body: body)
        }.map { HTTPAnswer($0) }.recover { error in
            HTTPAnswer(.error(AdminError(.internal, "\(error)")), closesConnection: true)
        }
    }

    private func authorized(_ head: HTTPRequestHead) -> Bool {
        guard let value = head.headers.first(name: "authorization") else { return false }
        let expected = Array("Bearer \(token)".utf8)
        let given = Array(value.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension HTTPAnswer {
    /// An admin API answer as written.
    init(_ response: AdminResponse, closesConnection: Bool = false) {
        self.init(
            status: response.status, contentType: response.contentType, body: response.body,
            headers: response.headers, closesConnection: closesConnection)
    }
}
