import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PTTProtocol

/// How a client secures its control connection.
public enum ControlSecurity: Sendable {
    /// TLS, trusting the server's certificate as the store says (``KnownHosts``: on first use, refusing a changed one).
    case tls(any TrustStore)
    /// Clear text, for tests (`--no-tls`).
    case plain
}

/// A control connection to `pttd`, past `hello`/`welcome`.
///
/// Every inbound frame appears in ``messages``; ``request(_:timeout:)`` also returns the answer whose
/// `re` matches the request's id. Heartbeats are acknowledged automatically unless told otherwise.
public final class ControlClient: Sendable {
    public let welcome: Welcome
    public let messages: AsyncStream<ControlMessage>
    /// True when this connection pinned the server's certificate for the first time.
    public let pinnedCertificate: Bool
    public let serverFingerprint: String?
    /// How long the TCP connection, the TLS handshake and `hello` took.
    public let timings: ConnectTimings
    private let channel: Channel
    private let dispatcher: Dispatcher

    private init(
        welcome: Welcome, messages: AsyncStream<ControlMessage>, channel: Channel, dispatcher: Dispatcher,
        pinned: Bool, fingerprint: String?, timings: ConnectTimings
    ) {
        self.welcome = welcome
        self.messages = messages
        self.channel = channel
        self.dispatcher = dispatcher
        self.pinnedCertificate = pinned
        self.serverFingerprint = fingerprint
        self.timings = timings
    }

    /// Connects, says `hello` and waits for `welcome`.
    public static func connect(
        to endpoint: ServerEndpoint, hello: Hello, security: ControlSecurity, acknowledgeHeartbeats: Bool = true,
        timeout: Duration = .seconds(10), group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> ControlClient {
        let (stream, continuation) = AsyncStream<ControlMessage>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let dispatcher = Dispatcher(continuation: continuation)
        let pin = PinCheck()
        let clock = ConnectClock(start: ConnectClock.now())
        let sslContext: NIOSSLContext?
        if case .tls = security {
            sslContext = try sharedTLSContext()
        } else {
            sslContext = nil
        }
        let label = endpoint.description
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(timeout.nanosecondsClamped))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        if let sslContext, case .tls(let trust) = security {
                            let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: nil) {
                                certificates, promise in
                                promise.succeed(pin.verify(certificates, endpoint: label, trust: trust))
                            }
                            try sync.addHandler(handler)
                        }
                        try sync.addHandler(clock)
                        try sync.addHandler(ByteToMessageHandler(ControlFrameDecoder()))
                        try sync.addHandler(MessageToByteHandler(ControlFrameEncoder()))
                        try sync.addHandler(
                            ClientInboundHandler(dispatcher: dispatcher, acknowledgeHeartbeats: acknowledgeHeartbeats))
                    }
                }
                .connect(host: endpoint.host, port: endpoint.port).get()
        } catch {
            throw ControlClientError.connectFailed(endpoint: label, reason: "\(error)")
        }
        let reply: ControlMessage
        do {
            reply = try await dispatcher.awaitReply(
                id: Dispatcher.welcomeID, on: channel, timeout: timeout, what: "welcome"
            ) {
                channel.writeAndFlush(ControlMessage.hello(hello), promise: nil)
            }
        } catch {
            try? await channel.close()
            if let mismatch = pin.mismatch, case .tls(let trust) = security {
                throw ControlClientError.certificateChanged(
                    endpoint: label, expected: mismatch.expected, actual: mismatch.actual,
                    knownHostsFile: trust.location)
            }
            if let failure = pin.failure { throw failure }
            throw error
        }
        guard case .welcome(let welcome) = reply else {
            try? await channel.close()
            if case .error(let error) = reply { throw ControlClientError.refused(error) }
            throw ControlClientError.unexpectedReply(reply.type)
        }
        return ControlClient(
            welcome: welcome, messages: stream, channel: channel, dispatcher: dispatcher,
            pinned: pin.pinnedNow, fingerprint: pin.fingerprint,
            timings: clock.timings(welcomed: ConnectClock.now()))
    }

    /// The TLS context of every `.tls` connection, made on first use and kept.
    ///
    /// All of them use the same configuration: the server's certificate is checked by each connection's own pin
    /// callback (``PinCheck``), never by the context. Making a context costs about 3 ms on Linux, mostly loading
    /// the system's CA bundle (NIOSSL's default trust roots), which a woken app would otherwise pay on every
    /// connect. `NIOSSLContext` is thread-safe; the lock only guards the first creation (a failed one is tried
    /// again next time). The context keeps no TLS sessions for clients, so every handshake is a full one and is
    /// verified by the pin callback.
    private static let tlsContext = NIOLockedValueBox<NIOSSLContext?>(nil)

    private static func sharedTLSContext() throws -> NIOSSLContext {
        try tlsContext.withLockedValue { cached in
            if let cached { return cached }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .noHostnameVerification
            tls.minimumTLSVersion = .tlsv12
            let context = try NIOSSLContext(configuration: tls)
            cached = context
            return context
        }
    }

    /// Sends a frame as it is.
    public func send(_ message: ControlMessage) {
        channel.writeAndFlush(message, promise: nil)
    }

    /// Sends a request with a fresh id and waits for the frame that answers it (`re` = id).
    /// An `error` answer throws ``ControlClientError/refused(_:)``.
    public func request(_ message: ControlMessage, timeout: Duration = .seconds(10)) async throws -> ControlMessage {
        let id = dispatcher.nextID()
        let request = message.withID(id)
        let reply = try await dispatcher.awaitReply(
            id: id, on: channel, timeout: timeout, what: "the answer to \(message.type)"
        ) {
            channel.writeAndFlush(request, promise: nil)
        }
        if case .error(let error) = reply { throw ControlClientError.refused(error) }
        return reply
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }

    /// Closes the connection without waiting for anything (a dead link's TLS close could wait for an answer that
    /// never comes).
    public func abandon() {
        channel.close(promise: nil)
    }

    /// Completes when the connection is closed, by either side.
    public var closed: EventLoopFuture<Void> { channel.closeFuture }
}

extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled &+ attoseconds / 1_000_000_000
    }
}
