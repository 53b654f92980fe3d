import PTTProtocol

/// Why a control client call failed, worded for the person at the terminal.
public enum ControlClientError: Error, CustomStringConvertible, Sendable {
    /// The server answered with an `error` frame.
    case refused(ErrorFrame)
    /// The server's certificate is not the one pinned for this endpoint.
    case certificateChanged(endpoint: String, expected: String, actual: String, knownHostsFile: String)
    case connectFailed(endpoint: String, reason: String)
    case connectionClosed
    case timedOut(String)
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .refused(let error):
            "server refused: \(error.message) (\(error.code.rawValue))"
        case .certificateChanged(let endpoint, let expected, let actual, let file):
            """
            the TLS certificate of \(endpoint) has CHANGED.
              pinned:    \(expected)
              presented: \(actual)
            Someone may be impersonating the server. If the operator replaced the certificate on purpose
            (the operator's `pttctl cert` prints the presented fingerprint above), remove the line for
            \(endpoint) from \(file) and connect again.
            """
        case .connectFailed(let endpoint, let reason): "cannot connect to \(endpoint): \(reason)"
        case .connectionClosed: "the server closed the connection"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .unexpectedReply(let type): "unexpected reply '\(type)' from the server"
        }
    }
}
