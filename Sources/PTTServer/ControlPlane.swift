import APNs
import Foundation
import Logging
import NIOCore
import PTTCore
import PTTProtocol
import PTTRelay
import PTTStore

/// The control side of the server: channels, memberships, floors and sessions.
///
/// Confined to one event loop (`eventLoop`): every method must run there, which serialises all control
/// requests without locks or actor hops. Policy lives in the pure ``ChannelDirectory`` and ``FloorControl``;
/// this type stores changes, executes the actions they return, and keeps the sessions.
public final class ControlPlane: @unchecked Sendable {
    // @unchecked: every mutable property is touched only on `eventLoop` (checked with preconditions).
    public let eventLoop: EventLoop
    let configuration: ServerConfiguration
    let store: Store
    let metrics: ServerMetrics
    let clock: any PTTClock
    /// Wall-clock time, for what must survive a restart (announcement expiry) and for push send times.
    let wallClock: any WallClock
    var logger: Logger
    /// The relay's actual UDP port, announced in `joined`.
    var mediaPort: Int

    var directory: ChannelDirectory
    var floors: [ChannelID: FloorControl] = [:]
    var floorTimers: [ChannelID: Scheduled<Void>] = [:]
    var sessions: [UInt64: SessionRecord] = [:]
    var sessionByKey: [SessionKey: UInt64] = [:]
    var lastHeartbeat: [DeviceKey: Date] = [:]
    /// When the relay last heard an authenticated packet from each member (media or keep-alive).
    var heardMedia: [MemberID: PTTInstant] = [:]
    /// Packets the relay dropped from each member because it did not hold the floor (as last reported).
    var mediaDroppedNotHolder: [MemberID: Int] = [:]
    /// The audio relay, once started; told of every change to members and floors.
    var relay: MediaRelay?
    /// The wake notifier's queues, stored announcements and accounts.
    var notifier: NotifierState
    /// The APNs transport, when credentials are configured.
    var apns: APNsClient?
    /// Joins planned and waiting for their shared storage write (``flushJoins()``).
    var joinBatch = JoinBatch()

    /// A device of a user.
    struct DeviceKey: Hashable {
        var user: String
        var device: String
    }

    /// At most one live session per device and role.
    struct SessionKey: Hashable {
        var device: DeviceKey
        var role: ClientRole
    }

    struct SessionRecord {
        var session: ControlSession
        var key: SessionKey?
    }

    package init(eventLoop: EventLoop, configuration: ServerConfiguration, store: Store, metrics: ServerMetrics, clock: any PTTClock,
         wallClock: any WallClock = SystemWallClock(), apns: APNsClient? = nil, logger: Logger) throws {
        self.eventLoop = eventLoop
        self.configuration = configuration
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.wallClock = wallClock
        self.apns = apns
        self.logger = logger
        self.mediaPort = configuration.mediaPort
        self.directory = try store.load()
        self.notifier = NotifierState(configuration: configuration.wake, stored: try store.loadAnnouncements(), startedAt: wallClock.now())
        var random = SecureRandom()
        let rotation = directory.planRotateMediaKeys(random: &random)
        try store.write(rotation)
        directory.apply(rotation)
        updateGauges()
    }

    func updateGauges() {
        metrics.channels.set(Double(directory.channels.count))
        metrics.members.set(Double(directory.memberships.count))
    }

    // MARK: Sessions

    func sessionOpened(_ session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        sessions[session.id] = SessionRecord(session: session, key: nil)
    }

    func sessionClosed(_ session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        guard let record = sessions.removeValue(forKey: session.id) else { return }
        notifierSessionClosed(session)
        if let key = record.key, sessionByKey[key] == session.id {
            sessionByKey[key] = nil
            logger.info("session ended", metadata: ["user": "\(key.device.user)", "device": "\(key.device.device)", "role": "\(key.role.rawValue)"])
        }
    }

    func heartbeatAcknowledged(by session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        if let key = sessions[session.id]?.key { lastHeartbeat[key.device] = wallClock.now() }
    }

    /// Live sessions of a device, by role.
    func liveRoles(of device: DeviceKey) -> [ClientRole] {
        ClientRole.allCases.filter { sessionByKey[SessionKey(device: device, role: $0)] != nil }
    }

    /// The app session of a member's device, if connected.
    func appSession(of membership: Membership) -> ControlSession? {
        let key = SessionKey(device: DeviceKey(user: membership.user, device: membership.device), role: .app)
        return sessionByKey[key].flatMap { sessions[$0]?.session }
    }

    /// Every live session of a member's device.
    func allSessions(of membership: Membership) -> [ControlSession] {
        let device = DeviceKey(user: membership.user, device: membership.device)
        return ClientRole.allCases.compactMap { sessionByKey[SessionKey(device: device, role: $0)].flatMap { sessions[$0]?.session } }
    }

    // MARK: Requests

    /// Handles one request from a session, in arrival order.
    func receive(_ message: ControlMessage, from session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        guard let record = sessions[session.id] else { return session.requestDone() }
        if case .join(let join) = message, let key = record.key {
            // Answered (and marked done) when its batch is stored.
            if !handleJoin(join, device: key.device, from: session) { session.requestDone() }
            return
        }
        // Everything else sees the joins that arrived before it as stored and answered.
        flushJoins()
        defer { session.requestDone() }
        if case .hello(let hello) = message {
            return handleHello(hello, from: session)
        }
        guard let key = record.key else { return }  // hello failed: the connection is closing
        let device = key.device
        switch message {
        case .join: break
        case .leave(let leave): handleLeave(leave, device: device, from: session)
        case .pushToken(let token): handlePushToken(token, device: device, from: session)
        case .floorRequest(let command): handleFloorRequest(command, device: device, from: session)
        case .floorRelease(let command): handleFloorRelease(command, device: device, from: session)
        case .pushAck(let ack): handlePushAck(ack, device: device)
        default:
            metrics.frameRejected(reason: "bad-request")
            session.send(.error(ErrorFrame(code: .badRequest, message: "'\(message.type)' is not a request a client can send")))
        }
    }

    private func handleHello(_ hello: Hello, from session: ControlSession) {
        func refuse(_ code: ErrorCode, _ message: String, reason: String) {
            metrics.authFailed(reason: reason)
            logger.notice("hello refused", metadata: ["code": "\(code.rawValue)", "user": "\(hello.user)", "remote": "\(session.remoteAddress)"])
            session.close(with: ErrorFrame(code: code, message: message))
        }
        guard hello.version == ProtocolVersion.current else {
            return refuse(.unsupportedVersion, "protocol version \(hello.version) is not supported; this server speaks \(ProtocolVersion.current)", reason: "unsupported-version")
        }
        guard (1...128).contains(hello.device.count) else {
            return refuse(.badRequest, "device must be 1 to 128 characters", reason: "bad-request")
        }
        guard let user = directory.users[hello.user],
              SecretHasher.verify(secret: hello.secret, salt: user.salt, expected: user.secretHash) else {
            return refuse(.badCredentials, "unknown user or wrong secret", reason: "bad-credentials")
        }
        let device = DeviceKey(user: user.name, device: hello.device)
        let key = SessionKey(device: device, role: hello.role)
        if let staleID = sessionByKey[key], staleID != session.id, let stale = sessions[staleID] {
            metrics.sessionsReplaced.increment()
            sessions[staleID]?.key = nil
            logger.info("replacing stale session", metadata: ["user": "\(user.name)", "device": "\(hello.device)", "role": "\(hello.role.rawValue)"])
            stale.session.close(with: ErrorFrame(code: .replaced, message: "a newer connection for this device and role replaced this one"))
        }
        sessions[session.id]?.key = key
        sessionByKey[key] = session.id
        lastHeartbeat[device] = wallClock.now()
        logger.info("session started", metadata: ["user": "\(user.name)", "device": "\(hello.device)", "role": "\(hello.role.rawValue)",
                                                  "remote": "\(session.remoteAddress)", "client": "\(hello.client ?? "-")"])
        let memberships = directory.memberships(user: user.name, device: hello.device).map { joined(for: $0, re: nil, listMembers: false) }
        session.send(.welcome(Welcome(
            version: ProtocolVersion.current, server: "pttd", session: "\(session.id)",
            heartbeatIntervalMs: Int(configuration.heartbeatInterval.milliseconds), memberships: memberships)))
        session.authenticated()
        deliverStoredAnnouncements(to: session, device: device, role: hello.role)
    }

    /// Writes changes to storage, then applies them. On a storage failure nothing changes and the error is logged.
    /// Joins still waiting in a batch are stored first, so changes reach storage in the order they were made.
    func commit(_ changes: [DirectoryChange]) throws {
        if !joinBatch.entries.isEmpty { flushJoins() }
        do {
            try store.write(changes)
        } catch {
            logger.error("storage write failed", metadata: ["error": "\(error)"])
            throw error
        }
        let removed = Self.memberships(removedBy: changes, in: directory)
        let relayChanges = Self.relayChanges(for: changes, in: directory)
        directory.apply(changes)
        for id in removed {
            heardMedia[id] = nil
            mediaDroppedNotHolder[id] = nil
            _ = notifier.book.removeMember(id)  // storage removed them with the membership
            notifier.ledger.forget(id)
        }
        updateGauges()
        relay?.apply(relayChanges)
    }

    func sendError(_ session: ControlSession, re: Int?, _ code: ErrorCode, _ message: String) {
        session.send(.error(ErrorFrame(re: re, code: code, message: message)))
    }

    /// Sends the same message to the app session of every member of a channel, except `excluding`.
    /// The frame is encoded once and the same bytes go to every connection.
    func broadcast(_ message: ControlMessage, to channel: ChannelID, excluding: MemberID? = nil) {
        broadcast(message, to: directory.members(of: channel).filter { $0.id != excluding })
    }

    /// Sends the same message to the app session of each of these members; encoded once.
    func broadcast(_ message: ControlMessage, to members: [Membership]) {
        let frame: ControlFrame
        do { frame = try ControlFrame(message) } catch {
            return logger.error("cannot encode a broadcast", metadata: ["type": "\(message.type)", "error": "\(error)"])
        }
        ControlSession.send(frame, to: members.compactMap(appSession(of:)))
    }
}
