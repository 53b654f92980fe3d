import Logging
import NIOCore
import NIOHTTP1

/// One HTTP connection of the admin or web listener, after NIO's HTTP/1 codec: collects each request
/// (``HTTPRequestCollector``, bodies up to the responder's limit), has `Responder` answer it, and writes the answer
/// with its length and `connection` header. Keep-alive connections serve any number of requests, one at a time
/// (NIO's pipelining handler holds the next until this one's end is written); a request whose body was too large,
/// or that did not ask for keep-alive, or an answer that ``HTTPAnswer/closesConnection``, closes the connection
/// once the answer is written. A `HEAD` is answered without the body. Each answer is reported to
/// ``AdminDeadlines`` in front with the outbound event ``AdminResponseSent``: the connection is idle again.
package final class HTTPRequestHandler<Responder: HTTPResponder>: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    private let responder: Responder
    private let logger: Logger
    private var collector: HTTPRequestCollector

    package init(_ responder: Responder, logger: Logger) {
        self.responder = responder
        self.logger = logger
        collector = HTTPRequestCollector(maxBodyBytes: responder.maxBodyBytes)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = collector.received(unwrapInboundIn(data)) else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        responder.answer(request, on: context.channel).hop(to: context.eventLoop).whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .success(let answer): handler.write(answer, to: request, context: context)
            case .failure(let error):
                handler.logger.warning(
                    "\(handler.responder.listener) request failed without an answer", metadata: ["error": "\(error)"])
                context.close(promise: nil)
            }
        }
    }

    private func write(_ answer: HTTPAnswer, to request: HTTPRequest, context: ChannelHandlerContext) {
        let keepAlive = request.keepAlive && !answer.closesConnection
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: answer.contentType)
        headers.add(name: "content-length", value: "\(answer.body.count)")
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        headers.add(name: "connection", value: keepAlive ? "keep-alive" : "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))),
            promise: nil)
        if request.head.method != .HEAD, !answer.body.isEmpty {
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

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.debug("\(responder.listener) connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }
}
