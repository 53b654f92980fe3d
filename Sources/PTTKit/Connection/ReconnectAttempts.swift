import PTTProtocol

/// The reconnection attempts since the last connection, and what they say about the next one: how long it may take
/// and whether it goes at once. Pure.
///
/// A SYN lost on a dead link is sent again by TCP only 1 s later (then after 2 or 3 s on many systems), so an attempt
/// under way when the link returns would take that long to notice; a quick attempt gives up and starts again at once
/// with a fresh SYN instead: 500 ms, or four times the last connection's TCP time on a slower path, at most the
/// connect timeout. After ten unanswered quick attempts in a row (about 5 s) each one gets twice as long, up to the
/// connect timeout, so that a path slower than that still connects; an attempt that connected but could not finish
/// its handshake in time makes the next ones full length. (Attempts cannot overlap instead: two that both reached
/// `welcome` would replace each other on the server.)
struct ReconnectAttempts: Sendable, Equatable {
    /// Attempts in a row whose TCP connection timed out.
    private(set) var unanswered = 0
    /// The last attempt timed out: the next one needs no back-off wait.
    private(set) var retryAtOnce = false
    /// An attempt connected but could not finish its handshake in a quick attempt's time.
    private(set) var slowPath = false

    /// The shortest quick attempt.
    static let quickTimeout: Duration = .milliseconds(500)

    /// How long the next attempt may take, given the connect timeout and the last connection's TCP time.
    func timeout(connectTimeout: Duration, lastTCP: Duration?) -> Duration {
        if slowPath { return connectTimeout }
        let quick = max(Self.quickTimeout, (lastTCP ?? .zero) * 4)
        let doublings = min(max(unanswered - 9, 0), 8)
        return min(connectTimeout, quick * (1 << doublings))
    }

    /// An attempt connected: start afresh.
    mutating func connected() { self = ReconnectAttempts() }

    /// No answer to the SYNs within the attempt's time: the next attempt, with a fresh SYN, goes at once.
    mutating func unansweredInTime() {
        unanswered += 1
        retryAtOnce = true
    }

    /// TCP came up but TLS and `welcome` did not finish in time: the path is alive, only slow.
    mutating func handshakeTooSlow() {
        retryAtOnce = false
        slowPath = true
    }

    /// Any other failure (refused, unreachable): back off as usual.
    mutating func failed() { retryAtOnce = false }

    /// Whether retrying cannot help: the server refused the credentials or the protocol version, or the certificate
    /// is not the trusted one.
    static func cannotHelp(_ error: Error) -> Bool {
        switch error {
        case ControlClientError.refused(let frame):
            [.badCredentials, .unsupportedVersion, .badRequest].contains(frame.code)
        case ControlClientError.certificateChanged, is KnownHostsError: true
        default: false
        }
    }
}
