/// What a connection is for. A device may hold one connection of each role at once.
public enum ClientRole: String, Codable, Sendable, CaseIterable {
    /// The app itself: joins, talks, listens.
    case app
    /// The Local Push extension (`NEAppPushProvider`): receives wakes while the app is suspended.
    case pushProvider = "push-provider"
}

/// `hello`: the first frame a client sends.
public struct Hello: Codable, Sendable, Equatable {
    public var version: Int
    public var user: String
    public var secret: String
    /// A stable identifier the device chooses for itself (for example a UUID); 1 to 128 characters.
    public var device: String
    public var role: ClientRole
    /// Free text naming the client software, for logs.
    public var client: String?
    public init(
        version: Int = ProtocolVersion.current, user: String, secret: String, device: String, role: ClientRole = .app,
        client: String? = nil
    ) {
        self.version = version
        self.user = user
        self.secret = secret
        self.device = device
        self.role = role
        self.client = client
    }

    private enum CodingKeys: String, CodingKey { case version, user, secret, device, role, client }

    /// `role` may be left out on the wire: it defaults to `app`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        user = try c.decode(String.self, forKey: .user)
        secret = try c.decode(String.self, forKey: .secret)
        device = try c.decode(String.self, forKey: .device)
        role = try c.decodeIfPresent(ClientRole.self, forKey: .role) ?? .app
        client = try c.decodeIfPresent(String.self, forKey: .client)
    }
}

/// `welcome`: the server's answer to a good `hello`.
public struct Welcome: Codable, Sendable, Equatable {
    public var version: Int
    public var server: String
    public var session: String
    public var heartbeatIntervalMs: Int
    /// The memberships this device already holds (kept across disconnects and server restarts).
    public var memberships: [Joined]
    public init(version: Int, server: String, session: String, heartbeatIntervalMs: Int, memberships: [Joined]) {
        self.version = version
        self.server = server
        self.session = session
        self.heartbeatIntervalMs = heartbeatIntervalMs
        self.memberships = memberships
    }
}

/// `heartbeat`: sent by the server every interval; also accepted from clients.
public struct Heartbeat: Codable, Sendable, Equatable {
    public var seq: UInt64
    public init(seq: UInt64) { self.seq = seq }
}

/// `heartbeat-ack`: the answer to a `heartbeat`, echoing its `seq`.
public struct HeartbeatAck: Codable, Sendable, Equatable {
    public var seq: UInt64
    public init(seq: UInt64) { self.seq = seq }
}

/// `error`: a request failed, or the connection is about to close.
public struct ErrorFrame: Codable, Sendable, Equatable {
    /// The `id` of the request this answers, if any.
    public var re: Int?
    public var code: ErrorCode
    public var message: String
    public init(re: Int? = nil, code: ErrorCode, message: String) {
        self.re = re
        self.code = code
        self.message = message
    }
}
