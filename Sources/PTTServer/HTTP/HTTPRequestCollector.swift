import NIOCore
import NIOHTTP1

/// One whole HTTP/1 request as ``HTTPRequestCollector`` gathered it: the head, and the body unless it went over
/// the listener's limit.
package struct HTTPRequest: Sendable {
    package var head: HTTPRequestHead
    /// The body, empty when there was none or when it was too large.
    package var body: [UInt8]
    /// The body went over the limit: its bytes were dropped as they came, and the connection closes after the answer.
    package var bodyTooLarge: Bool

    /// Whether the connection stays open after the answer: the client asked for it and the body was not too large.
    package var keepAlive: Bool { head.isKeepAlive && !bodyTooLarge }

    /// The request target without its query string.
    package var path: String { String(head.uri.split(separator: "?", maxSplits: 1).first ?? "") }
}

/// Gathers NIO's request parts (head, body parts, end) into one ``HTTPRequest``, keeping at most `maxBodyBytes`
/// of body. Pure: ``HTTPRequestHandler`` feeds it every part and answers each request it returns.
///
/// A body over the limit is not kept (memory stays bounded whatever the client sends); the request still completes
/// at its end, marked ``HTTPRequest/bodyTooLarge``, so the listener can answer it (admin `413`, web `400`) and close.
package struct HTTPRequestCollector: Sendable {
    package let maxBodyBytes: Int
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyTooLarge = false

    package init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    /// Takes one part; returns the request once its end has arrived.
    package mutating func received(_ part: HTTPServerRequestPart) -> HTTPRequest? {
        switch part {
        case .head(let head):
            self.head = head
            body = []
            bodyTooLarge = false
            return nil
        case .body(var chunk):
            guard head != nil, !bodyTooLarge else { return nil }
            guard body.count + chunk.readableBytes <= maxBodyBytes else {
                bodyTooLarge = true
                body = []
                return nil
            }
            body += chunk.readBytes(length: chunk.readableBytes) ?? []
            return nil
        case .end:
            guard let head else { return nil }
            self.head = nil
            defer { body = [] }
            return HTTPRequest(head: head, body: body, bodyTooLarge: bodyTooLarge)
        }
    }
}
