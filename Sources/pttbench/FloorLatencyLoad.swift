#if os(Linux)
import Foundation
import NIOCore
import PTTAdmin
import PTTProtocol
import Synchronization

/// What a floor-latency load needs of the run: pttd, its admin API, how to connect, the bench user.
struct FloorLatencyContext: Sendable {
    let server: ServerProcess
    let admin: AdminClient
    let address: SocketAddress
    let security: JoinMemberSecurity
    /// The secret of user "bench", whose devices every member is.
    let secret: String
    /// The event loop of the load's connections (the measuring member has one of its own).
    let eventLoop: EventLoop
    /// Every connection made, closed at the end of the run whatever happens.
    let connections: FloorLatencyConnections
    /// The load's length (seconds): the join storm's spread, the recording's talking, the stop, the churn.
    let loadSeconds: Double

    /// `hello` for device `device` of user "bench", encoded.
    func hello(_ device: String) throws -> ByteBuffer {
        try ControlFrame(.hello(Hello(user: "bench", secret: secret, device: device, client: "pttbench"))).bytes
    }

    /// Connects `count` devices named `prefix-00000`… (welcomed, not joined), `parallelism` at a time, within
    /// `budget` seconds.
    func connect(
        _ count: Int, prefix: String, parallelism: Int = 32, budget: Double = 120
    ) async throws -> [FloorLatencyConnection] {
        let hellos = try (0..<count).map { try hello(String(format: "%@-%05d", prefix, $0)) }
        let deadline = ContinuousClock.now + .milliseconds(Int(budget * 1000))
        return try await connectInParallel(
            count, parallelism: parallelism, deadline: deadline,
            overrun: "connecting \(count) members took over \(budget) s"
        ) { [self] index in
            let connection = try await FloorLatencyConnection.connect(
                to: address, security: security, hello: hellos[index], eventLoop: eventLoop, timeout: .seconds(30))
            connections.add(connection)
            return connection
        }
    }

    /// Creates channel `channel` (admin API), then connects `count` devices named after it, `channel-00000`…
    /// (welcomed, not joined): a load's members, made ready before the measuring starts.
    func connect(_ count: Int, toNewChannel channel: String) async throws -> [FloorLatencyConnection] {
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: channel))
        return try await connect(count, prefix: channel)
    }
}

/// The connections of a run, for closing them all at its end.
final class FloorLatencyConnections: Sendable {
    private let all = Mutex<[FloorLatencyConnection]>([])

    func add(_ connection: FloorLatencyConnection) { all.withLock { $0.append(connection) } }

    func closeAll() async {
        for connection in all.withLock({ $0 }) { await connection.close() }
    }
}

/// When a load ended, for the probe's stop condition.
final class LoadDone: Sendable {
    private let ended = Mutex<NIODeadline?>(nil)

    func mark() { ended.withLock { $0 = .now() } }

    /// Whether the load ended before `instant`.
    func endedBefore(_ instant: NIODeadline) -> Bool { ended.withLock { $0.map { $0 < instant } ?? false } }
}

/// Load on pttd beside the measuring member: made ready (connected, joined) before the measuring starts, then run.
protocol FloorLatencyLoad: Sendable {
    /// Runs the load, starting `offset` seconds after `origin` (when the measuring started); returns what
    /// happened. Times in the report are seconds after `origin`.
    func run(origin: NIODeadline, offset: Double) async throws -> FloorLatencyLoadReport
}

/// How much load actually happened, and when (seconds after the measuring started).
struct FloorLatencyLoadReport: Codable, Sendable {
    var what: String
    /// The load's window: the floor samples whose request was written inside it are the "during load" figures.
    var startSeconds: Double
    var endSeconds: Double
    var joins: Int?
    var leaves: Int?
    var joinsPerSecond: Double?
    var leavesPerSecond: Double?
    /// Requests (joins, leaves) refused or not answered, and the first such answer.
    var failures = 0
    var firstFailure: String?
    var packetsSent: Int?
    var packetsRecorded: Int?
    var burstsRecorded: Int?
    /// postgres-stop: the backends stopped (pid and role), how long, and what the members saw.
    var stoppedBackends: [String]?
    var stoppedSeconds: Double?
    var membersConnected: Int?
    var membersDisconnected: Int?
    var longestHeartbeatGapMs: Double?
    var joinsAcknowledged: Int?
    var acknowledgedJoinsMissingFromDatabase: Int?

    init(what: String, startSeconds: Double, endSeconds: Double) {
        self.what = what
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
    }

    mutating func fail(_ error: Error) {
        failures += 1
        if firstFailure == nil { firstFailure = "\(error)" }
    }
}

extension NIODeadline {
    /// Seconds from `origin` to this instant.
    func seconds(since origin: NIODeadline) -> Double {
        Double(Int64(uptimeNanoseconds) - Int64(origin.uptimeNanoseconds)) / 1e9
    }

    /// `origin` plus `seconds`.
    static func after(_ origin: NIODeadline, seconds: Double) -> NIODeadline {
        origin + .nanoseconds(Int64(seconds * 1e9))
    }
}

/// Sleeps until `instant` (NIO's monotonic clock), at once if it has passed.
func sleepUntil(_ instant: NIODeadline) async throws {
    let now = NIODeadline.now()
    guard instant > now else { return }
    try await Task.sleep(for: .nanoseconds((instant - now).nanoseconds))
}
#endif
