import APNs
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PTTCore
import PTTProtocol
import PTTRelay
import PTTStore

/// The control side of the server: channels, memberships, floors, wakes and sessions.
///
/// Confined to one event loop (`eventLoop`): every method of the plane and of its parts runs there, which
/// serialises all control requests without locks or actor hops (an actor on that loop's executor would say the
/// same with `await` at every call from a connection, relay report and timer, and no fewer hops). Policy lives in
/// the pure `PTTCore` types (``ChannelDirectory``, ``FloorControl``, ``WakePolicy``, ``PushDispatcher``); the
/// plane stores changes, executes the actions they return, and keeps the sessions. It is split by
/// responsibility, each part a small type reaching the others through the plane:
///
/// - ``SessionTable``: live sessions by device and role; `hello` is handled here (`ControlPlane+Hello`).
/// - ``Memberships``: joins (batched into one transaction), leaves and push tokens.
/// - ``Floors``: one ``FloorControl`` per channel, its timer, and its actions turned into frames.
/// - ``Emergencies``: declaring and clearing a channel's emergency.
/// - ``RelayLink``: what the audio relay is told, and what it reports (media heard).
/// - ``Notifier`` and ``Announcements``: wakes and leaves over Local Push or APNs; operator announcements.
/// - ``AdminOperations``: what the admin API reads and changes.
/// - ``Recordings``: which channels are recorded, replays, and the recordings the admin API reads.
/// - ``SignInLinks``: one-time sign-in links for browsers, and the credentials they give.
public final class ControlPlane: @unchecked Sendable {
    // @unchecked: every mutable property is touched only on `eventLoop` (checked with preconditions).
    var context: PlaneContext
    /// The storage itself: read synchronously only while the plane is built, before it serves anything.
    let store: any Storage
    /// Every storage call once the plane serves: on a thread of its own, so that the plane never waits for one.
    let storage: StorageQueue
    /// Channels, users and memberships as stored. Changed only by ``applyStored(_:)``, when ``writes`` stored a
    /// change or another node's change was loaded.
    private(set) var directory: ChannelDirectory
    var sessions = SessionTable()
    /// Sessions whose request waits for storage, with the requests they sent after it (bounded by each
    /// connection's requests in flight).
    private var heldRequests: [UInt64: [ControlMessage]] = [:]
    /// Numbers for new connections, control and WebSocket alike (read from any thread).
    let sessionNumbers = SessionNumbers()
    /// A reload of the stored directory is on its way to the plane's loop (a cluster node's notifications come in
    /// bursts: one reload serves them all). Touched from any thread.
    let storedDirectoryReloadPending = NIOLockedValueBox(false)
    private(set) lazy var writes = DirectoryWrites(plane: self)
    private(set) lazy var memberships = Memberships(plane: self)
    private(set) lazy var floors = Floors(plane: self)
    private(set) lazy var emergencies = Emergencies(plane: self)
    private(set) lazy var calls = Calls(plane: self)
    private(set) lazy var broadcasts = Broadcasts(plane: self)
    private(set) lazy var scans = Scans(plane: self)
    private(set) lazy var relayLink = RelayLink(plane: self)
    private(set) lazy var notifier = Notifier(plane: self)
    private(set) lazy var announcements = Announcements(plane: self)
    private(set) lazy var admin = AdminOperations(plane: self)
    private(set) lazy var recordings = Recordings(plane: self)
    private(set) lazy var signInLinks = SignInLinks(plane: self)
    /// A cluster node's part: the node links, who owns each channel, forwarded requests (nil on a single server).
    private(set) lazy var cluster: ClusterPlane? = configuration.cluster.map {
        ClusterPlane(plane: self, node: $0.node)
    }

    public var eventLoop: EventLoop { context.eventLoop }
    var configuration: ServerConfiguration { context.configuration }
    var logger: Logger { context.logger }

    package init(
        eventLoop: EventLoop, configuration: ServerConfiguration, store: any Storage, metrics: ServerMetrics,
        clock: any PTTClock,
        wallClock: any WallClock = SystemWallClock(), apns: APNsClient? = nil, storageLoop: EventLoop? = nil,
        logger: Logger
    ) throws {
        context = PlaneContext(
            eventLoop: eventLoop, configuration: configuration, metrics: metrics, clock: clock,
            wallClock: wallClock, apns: apns, logger: logger)
        self.store = store
        storage = StorageQueue(store, on: storageLoop, answeringOn: eventLoop)
        directory = try store.load()
        let stored = try store.loadAnnouncements()
        // Fresh media keys at every start; not in a cluster, where other nodes' members are using theirs.
        if configuration.cluster == nil {
            var random = SecureRandom()
            let rotation = directory.planRotateMediaKeys(random: &random)
            try store.write(rotation)
            directory.apply(rotation)
        }
        announcements.restore(stored)
        signInLinks.restore(try store.loadWebCredentials())
        updateGauges()
    }

    /// The relay is bound: it learns every membership and floor, and announcement expiry starts.
    func start(relay: MediaRelay) {
        eventLoop.preconditionInEventLoop()
        relayLink.attach(relay)
        announcements.armExpiry()
        calls.restore()
    }

    /// The server stops: timers are cancelled, the relay is let go, and every session is told and closed.
    func stop() {
        eventLoop.preconditionInEventLoop()
        relayLink.detach()
        notifier.stop()
        announcements.stop()
        for record in sessions.records.values {
            record.session.close(with: ErrorFrame(code: .shuttingDown, message: "the server is shutting down"))
        }
    }

    // MARK: Sessions

    func sessionOpened(_ session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        sessions.opened(session)
    }

    func sessionClosed(_ session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        guard sessions.isOpen(session) else { return }
        heldRequests[session.id] = nil
        let key = sessions.closed(session)
        notifier.sessionClosed(session)
        if let key {
            logger.info(
                "session ended",
                metadata: [
                    "user": "\(key.device.user)", "device": "\(key.device.device)", "role": "\(key.role.rawValue)",
                ])
        }
    }

    func heartbeatAcknowledged(by session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        sessions.heartbeat(from: session, at: context.wallClock.now())
    }

    // MARK: Requests

    /// Handles one request from a session, in arrival order. A request that changes what is stored (`join`,
    /// `leave`, `push-token`) is answered once that is stored; the same session's later requests wait for it (a
    /// session's answers keep its order), while every other session's go on without waiting for any storage.
    func receive(_ message: ControlMessage, from session: ControlSession) {
        eventLoop.preconditionInEventLoop()
        if heldRequests[session.id] != nil { return heldRequests[session.id]!.append(message) }
        handle(message, from: session)
    }

    private func handle(_ message: ControlMessage, from session: ControlSession) {
        guard sessions.isOpen(session) else { return session.requestDone() }
        let key = sessions.key(of: session)
        if case .hello(let hello) = message {
            handleHello(hello, from: session)
            return session.requestDone()
        }
        guard let device = key?.device else { return session.requestDone() }  // hello failed: closing
        switch message {
        case .join(let join):
            heldRequests[session.id] = []
            return memberships.join(join, device: device, from: session)
        case .leave(let leave):
            heldRequests[session.id] = []
            return memberships.leave(leave, device: device, from: session)
        case .pushToken(let token):
            heldRequests[session.id] = []
            return memberships.registerPushToken(token, device: device, from: session)
        case .emergency(let request):
            heldRequests[session.id] = []
            return emergencies.declare(request, device: device, from: session)
        case .emergencyClear(let request):
            heldRequests[session.id] = []
            return emergencies.clear(request, device: device, from: session)
        case .call(let request): run(calls.place(request, device: device, from: session))
        case .callAccept(let command), .callDecline(let command), .callHangup(let command):
            run(calls.command(message.kind, command, device: device, from: session))
        case .broadcast(let request): run(broadcasts.start(request, device: device, from: session))
        case .scan(let request): run(scans.set(request, device: device, from: session))
        case .floorRequest(let command): run(floors.request(command, device: device, from: session))
        case .floorRelease(let command): run(floors.release(command, device: device, from: session))
        case .pushAck(let ack): announcements.acknowledged(ack, device: device)
        case .replay(let request): run(recordings.replay(request, device: device, from: session))
        case .presence(let request): run(memberships.presence(request, device: device, from: session))
        case .hello: break  // answered above
        case .welcome, .heartbeat, .heartbeatAck, .error, .joined, .left, .pushTokenRegistered, .memberJoined,
            .memberLeft, .floorGranted, .floorDenied, .floorQueued, .floorQueueCancelled, .floorReleased, .floorTaken,
            .floorIdle, .floorRevoked, .floorRevokePending, .push, .replaying, .replayEnded, .presenceReport,
            .emergencyDeclared, .emergencyCleared, .callRinging, .callIncoming, .callConnected, .callEnded,
            .broadcastStarted, .broadcastEnded, .scanSet, .scanSwitched:
            context.metrics.control.frameRejected(.badRequest)
            session.send(
                .error(ErrorFrame(code: .badRequest, message: "'\(message.type)' is not a request a client can send")))
        }
        session.requestDone()
    }

    /// A request that waited for storage is answered: the session reads on, and the requests it sent meanwhile
    /// are handled in order (up to the next one that waits for storage).
    func storedRequestAnswered(_ session: ControlSession) {
        session.requestDone()
        guard var held = heldRequests.removeValue(forKey: session.id) else { return }
        while !held.isEmpty {
            handle(held.removeFirst(), from: session)
            if heldRequests[session.id] != nil {
                heldRequests[session.id]! += held
                return
            }
        }
    }

    /// Applies changes that storage holds already (written here, or by another node of a cluster), and tells the
    /// relay and the notifier.
    func applyStored(_ changes: [DirectoryChange]) {
        let diff = directory.diff(of: changes)
        directory.apply(changes)
        for id in diff.removedMembers {
            relayLink.forget(id)
            announcements.forget(id)  // storage removed them with the membership
            notifier.forget(id)
        }
        updateGauges(channelsChanged: changes.contains(where: \.changesAChannel))
        relayLink.apply(diff)
    }

    /// The directory's gauges; the channels in emergency are counted again only when a channel changed (a join
    /// batch changes none, and counting reads every channel).
    private func updateGauges(channelsChanged: Bool = true) {
        context.metrics.channels.channels.set(Double(directory.channels.count))
        context.metrics.channels.members.set(Double(directory.memberships.count))
        guard channelsChanged else { return }
        let inEmergency = directory.channels.values.reduce(0) { $0 + ($1.emergency == nil ? 0 : 1) }
        context.metrics.channels.inEmergency.set(Double(inEmergency))
    }

    // MARK: Sending

    /// Sends the same message to the app session of every member of a channel, except `excluding`.
    /// The frame is encoded once and the same bytes go to every connection.
    func broadcast(_ message: ControlMessage, to channel: ChannelID, excluding: MemberID? = nil) {
        let members = directory.members(of: channel)
        broadcast(message, to: excluding == nil ? members : members.filter { $0.id != excluding })
    }

    /// Sends the same message to the app session of each of these members; encoded once.
    func broadcast(_ message: ControlMessage, to members: [Membership]) {
        let frame: ControlFrame
        do { frame = try ControlFrame(message) } catch {
            return logger.error(
                "cannot encode a broadcast", metadata: ["type": "\(message.type)", "error": "\(error)"])
        }
        ControlSession.send(frame, to: members.compactMap(sessions.appSession(of:)))
    }
}
