import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTProtocol

/// The app's connection to a pttd server: memberships, floor control, audio, and events, kept up by itself.
///
/// ```swift
/// let client = try await PTTClient.connect(
///     to: ServerEndpoint(parsing: "radio.ship.local")!,
///     credentials: PTTCredentials(user: "ann", secret: secret, device: deviceID),
///     trust: KnownHosts(path: knownHostsPath))
/// let deck = try await client.join("deck")
/// Task { for await event in client.events { /* update the UI and PTChannelManager */ } }
/// Task { for await item in deck.audio { /* decode .audio, conceal .lost */ } }
/// if case .granted = try await deck.requestFloor() { try deck.send(opus: packet) }
/// ```
///
/// Reliability is built in, as Apple's "Maintaining a Reliable Network Connection" asks: the client watches the
/// server's heartbeats and drops a connection that carried nothing for 1.5 heartbeat intervals; it reconnects
/// with exponential back-off and full jitter, at once when ``networkPathChanged()`` says the path changed; after a
/// reconnect every membership is attached again and its audio goes on with the same SSRC. ``state`` maps onto the
/// PushToTalk framework's service status.
public actor PTTClient {
    /// Settings with defaults for a local network.
    public struct Options: Sendable {
        /// How long one connection attempt (TCP, TLS, `hello`, `welcome`) may take.
        public var connectTimeout: Duration = .seconds(3)
        /// How long a request waits for its answer, and for the connection while reconnecting.
        public var requestTimeout: Duration = .seconds(10)
        /// When to try again after a connection is lost: from 100 ms doubling to 1 s by default, since the
        /// server is on the local network and a person is waiting.
        public var backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(1))
        /// How long the jitter buffer waits for a missing packet before reporting it lost.
        public var jitterDelay: Duration = .milliseconds(60)
        /// The SRTP suites to offer when joining, most preferred first (nil: the server's default).
        public var srtpSuites: [String]?
        /// Ask to be told of every member joining and leaving (nil: only in small channels, as the server decides).
        public var memberEvents: Bool?
        /// Names the client software in the server's logs.
        public var clientName = "PTTKit"

        /// The defaults.
        public init() {}
    }

    /// How the control connection is secured.
    public enum Security: Sendable {
        /// TLS, trusting the server's certificate as `store` says (``KnownHosts`` pins it on first use).
        case tls(any TrustStore)
        /// No TLS: only for a server started with `--no-tls`, on a network where that is acceptable.
        case plaintext

        /// The control connection's setting.
        var control: ControlSecurity {
            switch self {
            case .tls(let store): .tls(store)
            case .plaintext: .plain
            }
        }
    }

    /// The server.
    public nonisolated let endpoint: ServerEndpoint
    /// Who this client is.
    public nonisolated let credentials: PTTCredentials
    /// What happens, as typed values, in order. One consumer; it ends when the client is closed.
    public nonisolated let events: AsyncStream<PTTEvent>
    nonisolated let eventSink: AsyncStream<PTTEvent>.Continuation
    private let options: Options
    private let group: EventLoopGroup
    private let link: ControlLink
    var channels: [String: ChannelHandle] = [:]
    /// The scan list last set (``scan(_:resume:)``), sent again on every reconnect: a restarted server has none.
    var scanList: ScanRequest?
    /// The memberships the server listed in the last `welcome`.
    public private(set) var memberships: [Joined] = []
    /// The connection's state; every change is also delivered as ``PTTEvent/connectionState(_:)``.
    public var state: ConnectionState { get async { await link.state } }

    private init(
        endpoint: ServerEndpoint, credentials: PTTCredentials, security: Security, options: Options,
        group: EventLoopGroup
    ) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.options = options
        self.group = group
        let (events, eventSink) = AsyncStream.makeStream(of: PTTEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        self.events = events
        self.eventSink = eventSink
        // The link calls back into this client, which owns it: through a weak reference, set once made.
        let owner = NIOLockedValueBox(WeakClient())
        link = ControlLink(
            endpoint: endpoint, hello: credentials.hello(role: .app, client: options.clientName),
            security: security.control, connectTimeout: options.connectTimeout,
            readyTimeout: options.requestTimeout, backoff: options.backoff, group: group,
            handlers: .init(
                attached: { connection in await owner.withLockedValue { $0.client }?.attached(connection) },
                received: { message in await owner.withLockedValue { $0.client }?.received(message) },
                stateChanged: { state in eventSink.yield(.connectionState(state)) }))
        owner.withLockedValue { $0.client = self }
    }

    private struct WeakClient {
        weak var client: PTTClient?
    }

    /// Connects to `endpoint` as `credentials` and returns once the client is ready. The first attempt's error is
    /// thrown (wrong address, wrong credentials, a certificate the trust store refuses); once connected, the client
    /// reconnects by itself whenever the connection is lost.
    public static func connect(
        to endpoint: ServerEndpoint, credentials: PTTCredentials, security: Security, options: Options = Options(),
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> PTTClient {
        let client = PTTClient(
            endpoint: endpoint, credentials: credentials, security: security, options: options, group: group)
        do {
            try await client.link.start()
        } catch let error as ControlClientError {
            client.eventSink.finish()
            throw PTTClientError(error)
        }
        return client
    }

    /// ``connect(to:credentials:security:options:group:)`` with TLS and `trust`.
    public static func connect(
        to endpoint: ServerEndpoint, credentials: PTTCredentials, trust: any TrustStore,
        options: Options = Options()
    ) async throws -> PTTClient {
        try await connect(to: endpoint, credentials: credentials, security: .tls(trust), options: options)
    }

    // MARK: - Public calls

    /// Joins `channel` (a name or UUID), or refreshes the membership this device already holds, and opens its audio.
    /// `pushToken` is the PushToTalk framework's ephemeral token, hex, if the app has it already.
    public func join(
        _ channel: String, displayName: String? = nil, receiveOnly: Bool = false, pushToken: String? = nil
    ) async throws -> ChannelHandle {
        let answer = try await request(
            .join(
                Join(
                    channel: channel, displayName: displayName, receiveOnly: receiveOnly ? true : nil,
                    pushToken: pushToken, srtpSuites: options.srtpSuites, memberEvents: options.memberEvents)))
        guard case .joined(let joined) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        return try await handle(for: joined)
    }

    /// A handle for a membership the server listed in `welcome` (one this device held before: a relaunched app
    /// restoring its channel, or one woken for a burst), with its audio open.
    ///
    /// The membership is refreshed with a `join` first, keeping its display name and role: that gives it new SRTP
    /// keys. An earlier run of the app sent under the old key with sequence numbers and SRTCP indices this one does
    /// not know; sending under it again would reuse keystream, and the relay would drop the keep-alives as replays
    /// and never learn where to send.
    public func attach(_ membership: Joined) async throws -> ChannelHandle {
        if let open = channels[membership.channel.id] { return open }
        return try await join(
            membership.channel.id, displayName: membership.member.name, receiveOnly: membership.member.receiveOnly)
    }

    /// The handles of every membership this client has open.
    public var openChannels: [ChannelHandle] { Array(channels.values) }

    /// The network path changed (call it on every `NWPathMonitor` update): every channel's media socket is opened
    /// again on the new path and the relay follows it at once (a UDP socket does not notice that its address went
    /// away: without this, the relay would keep sending to the old address until the next keep-alive, up to 5 s);
    /// the control connection is tried again at once if waiting to, or checked with a heartbeat if connected.
    public func networkPathChanged() async {
        for handle in channels.values { await handle.networkPathChanged() }
        await link.networkPathChanged()
    }

    /// Connections made again since the first.
    public var reconnects: Int { get async { await link.reconnects } }

    /// The server certificate's SHA-256 fingerprint if this client pinned it for the first time (a ``KnownHosts``
    /// that did not know the server), to tell the person once; nil when it was trusted already.
    public var certificatePinnedNow: String? { get async { await link.pinnedFingerprint } }

    /// How long the TCP connection, TLS handshake and `hello` of the current (or last) connection took.
    public var connectTimings: ConnectTimings? { get async { await link.lastTimings } }

    /// Closes the connection and every channel's audio; memberships stay on the server (``ChannelHandle/leave()``
    /// ends one).
    public func close() async {
        await link.close()
        for handle in channels.values { await handle.ended() }
        channels.removeAll()
        eventSink.finish()
    }

    // MARK: - Kit-internal

    /// What a media session calls when its local address went away: the control connection is checked at once
    /// instead of when its heartbeats stop.
    nonisolated var pathChangeSignal: @Sendable () -> Void {
        // Only the control link is checked: the media socket that called has just been replaced already.
        { [weak self] in Task { await self?.link.networkPathChanged() } }
    }

    func request(_ message: ControlMessage) async throws -> ControlMessage {
        try await link.request(message, timeout: options.requestTimeout)
    }

    func forget(_ handle: ChannelHandle) {
        if channels[handle.id] === handle { channels[handle.id] = nil }
    }

    func handle(for joined: Joined) async throws -> ChannelHandle {
        if let existing = channels[joined.channel.id] {
            try await existing.reattach(joined, host: endpoint.host, group: group)
            return existing
        }
        let media: MediaSession
        do {
            media = try await MediaSession.open(
                host: endpoint.host, parameters: joined.media, group: group, addressChanged: pathChangeSignal)
        } catch let error as ControlClientError {
            throw PTTClientError.unusableMedia("\(error)")
        }
        let handle = ChannelHandle(client: self, joined: joined, media: media, jitterDelay: options.jitterDelay)
        channels[joined.channel.id] = handle
        return handle
    }

    /// A connection is up: every open membership is attached again from `welcome`; one the server no longer lists
    /// has ended.
    private func attached(_ connection: ControlClient) async {
        memberships = connection.welcome.memberships
        for (id, handle) in channels {
            if let membership = memberships.first(where: { $0.channel.id == id }) {
                do {
                    try await handle.reattach(membership, host: endpoint.host, group: group)
                    eventSink.yield(.reattached(channel: membership.channel))
                } catch {
                    eventSink.yield(.membershipEnded(channel: handle.info, reason: "media: \(error)"))
                }
            } else {
                channels[id] = nil
                await handle.ended()
                eventSink.yield(.membershipEnded(channel: handle.info, reason: "not-a-member"))
            }
        }
        // Not awaited here: the connection answers requests once this returns.
        if let scanList { Task { _ = try? await self.request(.scan(scanList)) } }
    }

    private func received(_ message: ControlMessage) async {
        switch message {
        case .floorTaken(let taken): channels[taken.channel.id]?.speakerChanged(taken.member)
        case .floorIdle(let idle): channels[idle.channel.id]?.speakerChanged(nil)
        case .left(let left):
            if let handle = channels.removeValue(forKey: left.channel.id) { await handle.ended() }
        case .callConnected(let connected):
            // The callee answered this caller's call: its channel's audio opens before the event says so.
            if (try? await callHandle(for: connected)) == nil { return }
        case .callEnded(let ended): await callEnded(ended.call, linger: .milliseconds(500))
        // In a broadcast's other channels nobody takes the floor: its sender is the one talking there.
        case .broadcastStarted(let started)
        where started.broadcast.speaker.id != channels[started.channel.id]?.membership.member.id:
            channels[started.channel.id]?.speakerChanged(started.broadcast.speaker)
        case .broadcastEnded(let ended): channels[ended.channel.id]?.speakerChanged(nil)
        case .hello, .welcome, .heartbeat, .heartbeatAck, .error, .join, .joined, .leave, .pushToken,
            .pushTokenRegistered, .memberJoined, .memberLeft, .floorRequest, .floorRelease, .floorGranted, .floorDenied,
            .floorQueued, .floorQueueCancelled, .floorReleased, .floorRevoked, .floorRevokePending, .push, .pushAck,
            .replay, .replaying, .replayEnded, .presence, .presenceReport, .emergency, .emergencyDeclared,
            .emergencyClear,
            .emergencyCleared, .call, .callRinging, .callIncoming, .callAccept, .callDecline, .callHangup, .broadcast,
            .broadcastStarted, .scan, .scanSet, .scanSwitched:
            break
        }
        if let event = PTTEvent.from(message) { eventSink.yield(event) }
    }
}
