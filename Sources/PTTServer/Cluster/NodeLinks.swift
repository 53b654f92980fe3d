import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PTTCore
import PTTProtocol
import PTTStore

/// This node's links to the other nodes of its cluster: one TLS connection per pair of nodes, opened by the node
/// whose name sorts first, authenticated both ways by the certificate fingerprint each node registered in the
/// database at its start (the database is the cluster's trust root; each start makes a fresh key pair).
///
/// Its state is confined to the plane's event loop; each connection runs on its own loop of `group` and reaches
/// the plane through ``received(_:from:)``.
final class NodeLinks: @unchecked Sendable {
    // @unchecked: mutable state only on `plane.eventLoop`.
    let name: String
    let metrics: ClusterMetrics
    private unowned let plane: ControlPlane
    private let identity: TLSIdentity
    /// TLS for the links this node takes and opens: its certificate both ways, the peer's checked by fingerprint.
    private let serverContext: NIOSSLContext
    private let clientContext: NIOSSLContext
    private let group: EventLoopGroup
    private let logger: Logger
    private var server: NIOCore.Channel?
    /// The live nodes as the last round read them, by name (without this one).
    private var nodes: [String: NodeRecord] = [:]
    /// Links whose hello was exchanged, by peer.
    private(set) var links: [String: Link] = [:]
    /// Links this node is opening, and when it may try again after a failure.
    private var opening: Set<String> = []
    private var retryAt: [String: NIODeadline] = [:]

    /// A peer's unsent bytes past which its link is closed: a node that stops reading costs a bounded amount.
    static let writeBufferLimit = 4 << 20
    /// The SRTP suite of media between nodes: AES-GCM, the cheaper per packet with AES-NI (Docs/BENCHMARKS.md).
    static let mediaSuite = MediaSuite.aeadAES128GCM

    /// One link that is up.
    final class Link {
        let peer: String
        let channel: NIOCore.Channel
        /// The pair's SRTP key and suite, and the peer relay's address.
        let mediaKey: [UInt8]
        let suite: MediaSuite
        var mediaAddress: SocketAddress?
        /// The channels the peer has members connected in, and the members its relay hears (its last `listening`).
        var listening: Set<ChannelID> = []
        var reachable: Set<MemberID> = []
        var pushProviders: Set<MemberID> = []

        init(peer: String, channel: NIOCore.Channel, mediaKey: [UInt8], suite: MediaSuite) {
            self.peer = peer
            self.channel = channel
            self.mediaKey = mediaKey
            self.suite = suite
        }
    }

    init(name: String, plane: ControlPlane, group: EventLoopGroup, metrics: ClusterMetrics, logger: Logger) throws {
        self.name = name
        self.plane = plane
        self.group = group
        self.metrics = metrics
        self.logger = logger
        identity = try TLSIdentity.makeSelfSigned(commonName: "pttd node \(name)")
        (serverContext, clientContext) = try Self.contexts(identity)
    }

    /// The fingerprint this node registers, and proves on every link.
    var fingerprint: String { identity.fingerprint }

    /// Where links are taken.
    var port: Int { server?.localAddress?.port ?? 0 }

    // MARK: Listening

    /// Binds the link listener.
    func bind(host: String, port: Int) async throws {
        let context = serverContext
        server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(
                .writeBufferWaterMark, value: .init(low: Self.writeBufferLimit / 4, high: Self.writeBufferLimit)
            )
            .childChannelInitializer { [self] child in
                child.eventLoop.makeCompletedFuture {
                    // Any certificate passes the handshake; the hello then checks it against the database.
                    let presented = NIOLockedValueBox<String?>(nil)
                    let tls = NIOSSLServerHandler(context: context) { certificates, promise in
                        if let der = try? certificates.first?.toDERBytes() {
                            presented.withLockedValue { $0 = Fingerprint.sha256(der) }
                        }
                        promise.succeed(.certificateVerified)
                    }
                    try self.addHandlers(
                        tls, role: .accepted(fingerprint: { presented.withLockedValue { $0 } }), to: child)
                }
            }
            .bind(host: host, port: port).get()
    }

    private func addHandlers(_ tls: ChannelHandler, role: NodeLinkHandler.Role, to channel: NIOCore.Channel) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(tls)
        try pipeline.addHandler(ByteToMessageHandler(NodeFrameDecoder()))
        try pipeline.addHandler(MessageToByteHandler(NodeFrameEncoder()))
        try pipeline.addHandler(NodeLinkHandler(role: role, links: self, logger: logger))
    }

    /// Closes the listener and every link.
    func close() async {
        try? await server?.close()
        let channels = try? await plane.eventLoop.submit { [self] in
            defer { links = [:] }
            return links.values.map(\.channel)
        }.get()
        for channel in channels ?? [] { try? await channel.close() }
    }

    // MARK: The nodes

    /// The live nodes changed (a round of ``ClusterNode``): opens the links this node opens that are missing, and
    /// closes the links to nodes that are gone or restarted (a new certificate).
    func nodesChanged(_ records: [NodeRecord]) {
        plane.eventLoop.preconditionInEventLoop()
        nodes = Dictionary(
            records.filter { $0.alive && $0.name != name && !$0.link.isEmpty }.map { ($0.name, $0) },
            uniquingKeysWith: { a, _ in a })
        for (peer, link) in links where nodes[peer] == nil {
            logger.notice("node link closed: the node is gone", metadata: ["peer": "\(peer)"])
            link.channel.close(promise: nil)
        }
        let now = NIODeadline.now()
        for (peer, record) in nodes where name < peer && links[peer] == nil && !opening.contains(peer) {
            if let at = retryAt[peer], now < at { continue }
            open(to: record)
        }
    }

    private func open(to record: NodeRecord) {
        guard let (host, port) = Self.hostAndPort(record.link) else {
            return logger.error("a node's link address is not HOST:PORT", metadata: ["peer": "\(record.name)"])
        }
        opening.insert(record.name)
        var random = SecureRandom()
        let suite = Self.mediaSuite
        let key = (0..<suite.keyLength).map { _ in UInt8.random(in: 0...255, using: &random) }
        let hello = NodeHello(node: name, to: record.name, mediaKey: HexCoding.encode(key), mediaSuite: suite.rawValue)
        let expected = record.fingerprint
        let peer = record.name
        let context = clientContext
        let connecting = ClientBootstrap(group: group)
            .connectTimeout(.seconds(3))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(
                .writeBufferWaterMark, value: .init(low: Self.writeBufferLimit / 4, high: Self.writeBufferLimit)
            )
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    // The peer must present the certificate it registered.
                    let tls = try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
                        let presented = (try? certificates.first?.toDERBytes()).flatMap { $0.map(Fingerprint.sha256) }
                        promise.succeed(presented == expected ? .certificateVerified : .failed)
                    }
                    try self.addHandlers(tls, role: .opened(peer: peer, hello: hello), to: channel)
                }
            }
            .connect(host: host, port: port)
        pendingKeys[peer] = key
        connecting.whenComplete { [self] result in
            plane.eventLoop.execute { [self] in
                if case .failure(let error) = result {
                    opening.remove(peer)
                    pendingKeys[peer] = nil
                    retryAt[peer] = .now() + .seconds(1)
                    metrics.linkFailures.increment()
                    logger.warning(
                        "cannot open a node link", metadata: ["peer": "\(peer)", "error": "\(error)"])
                } else if case .success(let channel) = result {
                    channel.closeFuture.whenComplete { _ in
                        self.plane.eventLoop.execute {
                            // Closed before its hello came back: try again later.
                            if self.opening.remove(peer) != nil {
                                self.pendingKeys[peer] = nil
                                self.retryAt[peer] = .now() + .seconds(1)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The keys of links being opened, until their hello comes back.
    private var pendingKeys: [String: [UInt8]] = [:]

    /// Checks an accepted link's hello (from any loop): the node must be live in this node's view, sort before it
    /// (it opens the link), and present the certificate it registered; `done` gets nil, or why the link is refused,
    /// on the connection's loop. Once `done` has answered the hello, ``accepted(_:channel:key:suite:)`` follows.
    func checkAccepted(
        _ hello: NodeHello, fingerprint: String?, channel: NIOCore.Channel,
        done: @escaping @Sendable (String?) -> Void
    ) {
        plane.eventLoop.execute { [self] in
            let refusal: String?
            if let record = nodes[hello.node] {
                if hello.node >= name {
                    refusal = "node '\(hello.node)' should take this node's link, not open one"
                } else if record.fingerprint != fingerprint {
                    refusal = "node '\(hello.node)' presented a certificate it did not register"
                } else if let key = hello.mediaKey.flatMap(HexCoding.decode),
                    let suite = hello.mediaSuite.flatMap(MediaSuite.init(rawValue:)), key.count == suite.keyLength
                {
                    refusal = nil
                } else {
                    refusal = "node '\(hello.node)' sent no usable media key"
                }
            } else {
                refusal = "node '\(hello.node)' is not a live node of this cluster (as this node last read it)"
            }
            channel.eventLoop.execute { done(refusal) }
        }
    }

    /// An accepted link's hello was answered (from the connection's loop): the link is up.
    func accepted(_ hello: NodeHello, channel: NIOCore.Channel) {
        guard let key = hello.mediaKey.flatMap(HexCoding.decode),
            let suite = hello.mediaSuite.flatMap(MediaSuite.init(rawValue:))
        else { return }
        plane.eventLoop.execute { [self] in established(hello.node, channel: channel, key: key, suite: suite) }
    }

    /// The hello of a link this node opened came back (from the connection's loop).
    func linkUp(_ peer: String, key: [UInt8]?, channel: NIOCore.Channel) {
        plane.eventLoop.execute { [self] in
            opening.remove(peer)
            guard let key = pendingKeys.removeValue(forKey: peer) else { return channel.close(promise: nil) }
            established(peer, channel: channel, key: key, suite: Self.mediaSuite)
        }
    }

    private func established(_ peer: String, channel: NIOCore.Channel, key: [UInt8], suite: MediaSuite) {
        if let old = links[peer], old.channel !== channel { old.channel.close(promise: nil) }
        let link = Link(peer: peer, channel: channel, mediaKey: key, suite: suite)
        if let media = nodes[peer]?.media, let (host, port) = Self.hostAndPort(media) {
            link.mediaAddress = try? SocketAddress.makeAddressResolvingHost(host, port: port)
        }
        links[peer] = link
        retryAt[peer] = nil
        metrics.linksUp.set(Double(links.count))
        logger.notice("node link up", metadata: ["peer": "\(peer)", "node": "\(name)"])
        plane.cluster?.nodeLinkUp(peer)
    }

    /// A link that was up closed (from the connection's loop).
    func linkClosed(_ peer: String, channel: NIOCore.Channel) {
        plane.eventLoop.execute { [self] in
            guard let link = links[peer], link.channel === channel else { return }
            links[peer] = nil
            retryAt[peer] = .now() + .milliseconds(200)
            metrics.linksUp.set(Double(links.count))
            logger.notice("node link down", metadata: ["peer": "\(peer)", "node": "\(name)"])
            plane.cluster?.nodeLinkDown(peer)
        }
    }

    /// A message from a peer (from the connection's loop).
    func received(_ message: NodeMessage, from peer: String) {
        plane.eventLoop.execute { [self] in plane.cluster?.nodeMessage(message, from: peer) }
    }

    // MARK: Sending

    /// Sends to one peer; false when its link is not up (or was closed for not reading).
    @discardableResult
    func send(_ message: NodeMessage, to peer: String) -> Bool {
        plane.eventLoop.preconditionInEventLoop()
        guard let link = links[peer] else { return false }
        guard link.channel.isWritable else {
            logger.warning("node link closed: the peer does not read", metadata: ["peer": "\(peer)"])
            metrics.linkFailures.increment()
            link.channel.close(promise: nil)
            return false
        }
        link.channel.writeAndFlush(message, promise: nil)
        return true
    }

    /// Sends to every peer whose link is up.
    func broadcast(_ message: NodeMessage) {
        for peer in links.keys { send(message, to: peer) }
    }
}
