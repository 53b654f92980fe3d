import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Gathers an admin API answer (status and body, at most `limit` bytes) on the HTTP client's event loop: every
/// received buffer is copied there and let go there, so no receive buffer of NIO's pool is ever released on another
/// thread while the loop reuses it.
final class AdminResponseCollector: HTTPClientResponseDelegate, Sendable {
    typealias Response = (status: HTTPResponseStatus, body: [UInt8])

    private struct State {
        var status: HTTPResponseStatus = .ok
        var body: [UInt8] = []
    }

    private let limit: Int
    // The delegate's calls come one after another on the request's event loop; the lock makes that plain to Swift.
    private let state = NIOLockedValueBox(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// An answer over the limit.
    struct TooLarge: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "the answer is larger than \(limit >> 20) MiB" }
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        state.withLockedValue { $0.status = head.status }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let fits = state.withLockedValue { state -> Bool in
            guard state.body.count + buffer.readableBytes <= limit else { return false }
            state.body.append(contentsOf: buffer.readableBytesView)
            return true
        }
        return fits ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(TooLarge(limit: limit))
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        state.withLockedValue { ($0.status, $0.body) }
    }
}
