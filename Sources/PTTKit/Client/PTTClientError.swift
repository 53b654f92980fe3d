import PTTProtocol

/// Why a ``PTTClient``, ``ChannelHandle`` or ``PushProviderSession`` call failed.
public enum PTTClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error (`code` says which, `message` says why in words).
    case refused(code: ErrorCode, message: String)
    /// The client is closed (by the app, or because the server refused it for good).
    case closed(String)
    /// The client was not connected within the time allowed, and was in `state`.
    case notConnected(state: ConnectionState)
    /// The request was sent but no answer came in time, or the connection ended before it did.
    case noAnswer(String)
    /// The server answered with a frame this request does not expect.
    case unexpectedReply(String)
    /// The membership ended; nothing more can be done with this channel handle.
    case notAMember(channel: String)
    /// Audio is sent faster than real time and ``ChannelHandle/maximumQueuedPackets`` wait already.
    case transmitQueueFull
    /// The media parameters the server gave cannot be used (an SRTP suite or key this kit does not take).
    case unusableMedia(String)

    /// The kit's word for a control connection error.
    init(_ error: ControlClientError) {
        switch error {
        case .refused(let frame): self = .refused(code: frame.code, message: frame.message)
        case .connectionClosed: self = .noAnswer(Self.closedEarly)
        case .timedOut(let what): self = .noAnswer("timed out waiting for \(what)")
        case .unexpectedReply(let type): self = .unexpectedReply(type)
        case .certificateChanged, .connectFailed: self = .closed("\(error)")
        }
    }

    /// What ``noAnswer(_:)`` says when the connection ended before the answer came.
    public static let closedEarly = "the connection closed before the answer came"

    public var description: String {
        switch self {
        case .refused(let code, let message): "server refused: \(message) (\(code.rawValue))"
        case .closed(let reason): "the client is closed: \(reason)"
        case .notConnected(let state): "not connected to the server (\(state))"
        case .noAnswer(let what): "no answer from the server: \(what)"
        case .unexpectedReply(let type): "unexpected reply '\(type)' from the server"
        case .notAMember(let channel): "no longer a member of \(channel)"
        case .transmitQueueFull: "audio is handed over faster than real time: the send queue is full"
        case .unusableMedia(let reason): "cannot use the media parameters: \(reason)"
        }
    }
}
