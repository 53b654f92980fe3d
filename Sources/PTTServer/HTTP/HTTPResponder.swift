import NIOCore

/// What a listener does with each whole request: the admin API (``AdminHTTPResponder``) and the web listener's
/// pages and sign-ins (``WebHTTPResponder``). ``HTTPRequestHandler`` collects the request and writes the answer.
package protocol HTTPResponder {
    /// The largest request body kept; a larger one arrives as ``HTTPRequest/bodyTooLarge``.
    var maxBodyBytes: Int { get }
    /// Names the listener in the log (`admin`, `web`).
    var listener: String { get }
    /// Answers `request`, which arrived on `channel`: at once, or later on any event loop. The future should not
    /// fail (answer errors with a status); if it does, the connection is closed without an answer.
    func answer(_ request: HTTPRequest, on channel: any NIOCore.Channel) -> EventLoopFuture<HTTPAnswer>
}
