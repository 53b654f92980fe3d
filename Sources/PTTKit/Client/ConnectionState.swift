/// Where a ``PTTClient`` connection stands. It maps one to one onto the PushToTalk framework's
/// `PTServiceStatus`: pass ``connecting`` as `.connecting` and ``ready`` as `.ready` to
/// `PTChannelManager.setServiceStatus(_:channelUUID:)`, so that the system does not let the person transmit while
/// the client cannot.
public enum ConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// Connecting, or waiting to connect again after the connection was lost (`.connecting`).
    case connecting
    /// Connected and past `hello`; every membership is attached (`.ready`).
    case ready
    /// Closed for good: by ``PTTClient/close()``, or because the server refused these credentials or showed a
    /// certificate the trust store refuses (retrying could not help). Nothing reconnects after this.
    case closed(reason: String)

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .ready: "ready"
        case .closed(let reason): "closed (\(reason))"
        }
    }
}
