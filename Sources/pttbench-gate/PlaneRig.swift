// The plane's benchmarks drive internal API (`@testable`): debug builds only, which is what `make bench-check`
// builds. A release build of every target still compiles (the gate then refuses to run).
#if DEBUG
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import PTTCore
import PTTProtocol
import PTTStore

@testable import PTTServer

/// A ``ControlPlane`` as `pttd` runs it, without sockets: its own one-thread event loop, its storage on the
/// ``StorageQueue``'s thread over SQLite in memory (`:memory:`), and sessions whose connections are
/// `EmbeddedChannel`s. Those channels live on the plane's thread (an embedded loop is used only from the thread that
/// made it), so what the plane sends a session is written and dropped there at once, and the `requestDone` the plane
/// fires after each request is what the driver waits for. Nothing crosses a socket; every step of a request from
/// the plane's `receive` to its answer, and the storage write on the other thread, is the server's own code.
final class PlaneRig: @unchecked Sendable {
    // @unchecked: `connections` and `nextSession` are touched on the plane's loop only.
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop: EventLoop
    let plane: ControlPlane
    let metrics = ServerMetrics()
    let configuration = ServerConfiguration()
    let answers = RequestTally()
    private var connections: EmbeddedEventLoop?
    private var nextSession: UInt64 = 1
    private var secret = ""
    static let logger = Logger(label: "pttbench-gate", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A rig whose storage holds `directoryMembers` memberships already (in channels of 100 the benchmark does not
    /// use), so that what an operation costs in a large directory is what is counted.
    init(directoryMembers: Int = 0) throws {
        loop = group.next()
        let store = try SQLiteStore(path: ":memory:")
        if directoryMembers > 0 { try store.write(Self.seed(directoryMembers)) }
        plane = try ControlPlane(
            eventLoop: loop, configuration: configuration, store: store, metrics: metrics,
            clock: UptimeClock(), logger: Self.logger)
        try loop.submit { self.connections = EmbeddedEventLoop() }.wait()
        answers.settle = { [unowned self] done in
            self.loop.execute {
                self.flushConnections()
                done()
            }
        }
        secret = try loop.flatSubmit { self.plane.admin.addUser(AddUserRequest(name: "bench")) }.wait().secret
    }

    /// `count` memberships of the user `seed`, one device each, 100 to a channel (`seed-0`, `seed-1`, …).
    static func seed(_ count: Int) throws -> [DirectoryChange] {
        var directory = ChannelDirectory()
        var random = SystemRandomNumberGenerator()
        let now = Date()
        var changes: [DirectoryChange] = [
            .putUser(User(name: "seed", secretHash: [0], salt: [0], priority: 0, receiveOnly: false, createdAt: now))
        ]
        directory.apply(changes)
        var channel = ChannelID()
        for index in 0..<count {
            if index % 100 == 0 {
                let created = try directory.planCreateChannel(name: "seed-\(index / 100)", now: now)
                directory.apply(.putChannel(created))
                changes.append(.putChannel(created))
                channel = created.id
            }
            let planned = try directory.planJoin(
                channel: channel, user: "seed", device: "device-\(index)", displayName: nil, receiveOnly: false,
                pushToken: nil, now: now, random: &random)
            directory.apply(.putMembership(planned.membership))
            changes.append(.putMembership(planned.membership))
        }
        return changes
    }

    func shutdown() {
        try? loop.submit { self.plane.stop() }.wait()
        try? group.syncShutdownGracefully()
    }

    /// Opens a session for `device` of the user `bench` and says `hello` (answered at once: no storage).
    func connect(device: String) throws -> ControlSession {
        let session = try loop.submit {
            let channel = EmbeddedChannel(
                handlers: [FrameSink(), RequestDoneWatcher(self.answers)], loop: self.connections!)
            let session = ControlSession(
                id: self.nextSession, channel: channel, limits: ConnectionLimitsInEffect(self.configuration.limits),
                metrics: self.metrics, logger: Self.logger)
            self.nextSession += 1
            self.plane.sessionOpened(session)
            self.answers.expect(1)
            self.plane.receive(.hello(Hello(user: "bench", secret: self.secret, device: device)), from: session)
            return session
        }.wait()
        try answers.wait("hello of \(device)")
        return session
    }

    /// Hands `requests` to the plane in order, in one task on its loop (as requests read together arrive), waits
    /// until every one is answered, then until the plane's loop has finished what it was doing (its flushes
    /// included). One task, not one per request: how many loop turns the requests take would otherwise depend on
    /// when the plane's thread wakes, and so would NIO's allocations per turn (±2 % per floor request, measured).
    func exchange(_ requests: [(ControlMessage, ControlSession)]) throws {
        let answers = self.answers
        loop.execute {
            answers.expect(requests.count)
            for (message, session) in requests { self.plane.receive(message, from: session) }
        }
        try answers.wait("\(requests.map(\.0.type))")
    }

    /// On the plane's loop: runs what the sessions' connections have queued (their flushes).
    func flushConnections() {
        connections!.run()
    }

    /// One series of the server's metrics (0 when absent).
    func metric(_ series: String) -> Double {
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Double($0.split(separator: " ").last!) } ?? 0
    }
}

/// Counts the `requestDone`s the plane fires (on its loop) and wakes the driver when the expected number came.
final class RequestTally: @unchecked Sendable {
    // @unchecked: `count` and `expected` are touched on the plane's loop only; the semaphore is thread-safe.
    private var count = 0
    private var expected = Int.max
    private let reached = DispatchSemaphore(value: 0)
    /// Called on the plane's loop when the last answer came, with what wakes the driver: lets the plane finish the
    /// turn it is in (and the sessions flush) first, so the driver never finds it half-way.
    var settle: (@escaping @Sendable () -> Void) -> Void = { $0() }

    /// On the plane's loop: start counting towards `expected` answers.
    func expect(_ expected: Int) {
        count = 0
        self.expected = expected
    }

    func answered() {
        count += 1
        if count == expected { settle { self.reached.signal() } }
    }

    /// Waits at most 10 s for the expected answers.
    func wait(_ what: String) throws {
        guard reached.wait(timeout: .now() + .seconds(10)) == .success else {
            throw GateFailure("the plane did not answer \(what) within 10 s")
        }
    }
}

/// At the head of a session's embedded channel: every frame the plane writes is taken as written, and dropped.
final class FrameSink: ChannelOutboundHandler {
    typealias OutboundIn = Any

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promise?.succeed(())
    }

    func flush(context: ChannelHandlerContext) {}
}

/// Tells the tally of each request the plane finished for this session.
final class RequestDoneWatcher: ChannelInboundHandler {
    typealias InboundIn = Any
    private let tally: RequestTally

    init(_ tally: RequestTally) { self.tally = tally }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .requestDone? = event as? ControlSessionEvent { tally.answered() }
    }
}
#endif
