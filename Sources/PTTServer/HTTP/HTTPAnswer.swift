import NIOHTTP1

/// What a listener answers one request with; ``HTTPRequestHandler`` adds the framing headers (length, connection).
package struct HTTPAnswer: Sendable {
    package var status: HTTPResponseStatus
    package var contentType: String
    package var body: [UInt8] = []
    /// Headers besides content type, length and connection (the web listener's security headers, say).
    package var headers: [(String, String)] = []
    /// Close the connection after this answer even if the request asked to keep it open (an internal error).
    package var closesConnection = false
}
