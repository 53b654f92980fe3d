import NIOCore
import NIOPosix
import PTTProtocol

/// The connection a Local Push extension (`NEAppPushProvider`) keeps to the server while the app is suspended: it
/// acknowledges the server's heartbeats and every push, and hands over each wake as a ``PushToTalkWake``.
///
/// ```swift
/// override func start() {
///     Task {
///         session = try await PushProviderSession.start(to: endpoint, credentials: credentials, trust: trust)
///         for await wake in session.wakes { reportPushToTalkMessage(userInfo: wake.userInfo) }
///     }
/// }
/// override func handleTimerEvent() { Task { await session?.checkHealth() } }
/// override func stop(with reason: NEProviderStopReason) async { await session?.stop() }
/// ```
///
/// It reconnects by itself like ``PTTClient`` (heartbeat watch, back-off with jitter), and stops for good when a
/// newer connection of the same device replaces it (a relaunched extension). Its memory stays small: at most
/// ``maximumWaitingWakes`` wakes wait for the extension, the oldest dropped first.
public final class PushProviderSession: Sendable {
    /// Each wake, in order (speaker wakes and leaves). One consumer; it ends when the session stops.
    public let wakes: AsyncStream<PushToTalkWake>
    /// Operator announcements (alert pushes): a channel UUID and the text, for a local notification.
    public let announcements: AsyncStream<(channel: String, text: String)>
    /// The most wakes that wait for the extension to take them.
    public static let maximumWaitingWakes = 16

    private let link: ControlLink

    private init(
        link: ControlLink, wakes: AsyncStream<PushToTalkWake>,
        announcements: AsyncStream<(channel: String, text: String)>
    ) {
        self.link = link
        self.wakes = wakes
        self.announcements = announcements
    }

    /// Connects as the `push-provider` of `credentials`' device and returns once connected (throwing the first
    /// attempt's error); from then on it reconnects by itself.
    public static func start(
        to endpoint: ServerEndpoint, credentials: PTTCredentials, security: PTTClient.Security,
        options: PTTClient.Options = PTTClient.Options(),
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> PushProviderSession {
        let (wakes, wakeSink) = AsyncStream<PushToTalkWake>.makeStream(
            bufferingPolicy: .bufferingNewest(maximumWaitingWakes))
        let (announcements, announcementSink) = AsyncStream<(channel: String, text: String)>.makeStream(
            bufferingPolicy: .bufferingNewest(maximumWaitingWakes))
        let acknowledge = AckSender()
        let link = ControlLink(
            endpoint: endpoint, hello: credentials.hello(role: .pushProvider, client: options.clientName),
            security: security.control, connectTimeout: options.connectTimeout,
            readyTimeout: options.requestTimeout, backoff: options.backoff, group: group,
            handlers: .init(
                attached: { connection in acknowledge.connection = connection },
                received: { message in
                    guard case .push(let frame) = message else { return }
                    acknowledge.send(.pushAck(PushAck(id: frame.id)))
                    if let wake = try? PushToTalkWake(
                        payload: frame.payload, expiration: frame.expiration, pushID: frame.id)
                    {
                        wakeSink.yield(wake)
                    } else if let text = frame.payload.announcement {
                        announcementSink.yield((frame.payload.channel, text))
                    }
                },
                stateChanged: { state in
                    if case .closed = state {
                        wakeSink.finish()
                        announcementSink.finish()
                    }
                }))
        do {
            try await link.start()
        } catch let error as ControlClientError {
            throw PTTClientError(error)
        }
        return PushProviderSession(link: link, wakes: wakes, announcements: announcements)
    }

    /// ``start(to:credentials:security:options:group:)`` with TLS and `trust`.
    public static func start(
        to endpoint: ServerEndpoint, credentials: PTTCredentials, trust: any TrustStore
    ) async throws -> PushProviderSession {
        try await start(to: endpoint, credentials: credentials, security: .tls(trust))
    }

    /// What `handleTimerEvent()` calls every 60 s: true while the server's heartbeats come; a link that went
    /// silent is dropped and connected again.
    @discardableResult
    public func checkHealth() async -> Bool { await link.checkHealth() }

    /// The network path changed: reconnect at once if waiting to, or check the connection.
    public func networkPathChanged() async { await link.networkPathChanged() }

    /// The connection's state.
    public var state: ConnectionState { get async { await link.state } }

    /// Connections made again since the first.
    public var reconnects: Int { get async { await link.reconnects } }

    /// Stops for good (`stop(with:)`): closes the connection and ends ``wakes``.
    public func stop() async { await link.close(reason: "stopped by the extension") }
}

/// Sends `push-ack`s on the current connection (set on each attach, read from the link's task).
private final class AckSender: @unchecked Sendable {
    // @unchecked: written in `attached` and read in `received`, both called one after another by the link's task.
    var connection: ControlClient?
    func send(_ message: ControlMessage) { connection?.send(message) }
}
