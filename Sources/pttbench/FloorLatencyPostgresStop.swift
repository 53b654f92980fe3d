#if os(Linux)
import Foundation
import Glibc
import NIOCore
import PTTProtocol

/// `--scenario postgres-stop`: pttd is a cluster node (of one) on a private PostgreSQL. `members` members of channel
/// "held" stay connected (heartbeats every second) and more members join it, 10 a second, throughout; 1 s into the
/// run the PostgreSQL backend(s) serving the node are stopped (SIGSTOP) for `loadSeconds`, then continued (SIGCONT).
/// Afterwards: was any member disconnected, and is every join pttd answered `joined` in the database?
struct FloorLatencyPostgresStop: FloorLatencyLoad {
    let postgres: FloorLatencyPostgres
    let members: [FloorLatencyConnection]
    let joiners: [FloorLatencyConnection]
    let seconds: Double
    /// "store": the backend of pttd's storage connection (the one the plane waits on); "all": every backend of the
    /// node (also its cluster connection, which holds the node's lock).
    let which: String

    static let channel = "held"
    static let joinsPerSecond = 10.0
    /// Joins go on for this long after the backends are continued.
    static let tailSeconds = 2.0

    static func prepare(
        _ context: FloorLatencyContext, postgres: FloorLatencyPostgres, members: Int, which: String
    ) async throws -> FloorLatencyPostgresStop {
        let held = try await context.connect(members, toNewChannel: channel)
        let join = try ControlFrame(ControlMessage.join(Join(channel: channel)).withID(1)).bytes
        for member in held {
            _ = try await member.request(join, id: 1, answers: ["joined"], timeout: .seconds(30)).get()
        }
        let joinerCount = Int(((1 + context.loadSeconds + tailSeconds) * joinsPerSecond).rounded(.up)) + 5
        let joiners = try await context.connect(joinerCount, prefix: "joiner")
        return FloorLatencyPostgresStop(
            postgres: postgres, members: held, joiners: joiners, seconds: context.loadSeconds, which: which)
    }

    func run(origin: NIODeadline, offset: Double) async throws -> FloorLatencyLoadReport {
        let stopAt = NIODeadline.after(origin, seconds: offset)
        let continueAt = NIODeadline.after(stopAt, seconds: seconds)
        let joinsEnd = NIODeadline.after(continueAt, seconds: Self.tailSeconds)
        // The node's backends, found just before the stop (the storage connection may have been reopened).
        try await sleepUntil(.after(origin, seconds: max(0, offset - 0.5)))
        let backends = try await nodeBackends()
        guard !backends.isEmpty else { throw BenchError("no PostgreSQL backend of the node to stop (\(which))") }
        let join = try ControlFrame(ControlMessage.join(Join(channel: Self.channel)).withID(1)).bytes
        let joining = Task { () -> [(String, EventLoopFuture<TimedAnswer>)] in
            var answers: [(String, EventLoopFuture<TimedAnswer>)] = []
            for (index, joiner) in joiners.enumerated() {
                let at = NIODeadline.after(origin, seconds: Double(index) / Self.joinsPerSecond)
                guard at < joinsEnd else { break }
                try? await sleepUntil(at)
                answers.append(
                    (
                        String(format: "joiner-%05d", index),
                        joiner.request(join, id: 1, answers: ["joined"], timeout: .seconds(60))
                    ))
            }
            return answers
        }
        var report = FloorLatencyLoadReport(
            what: "PostgreSQL backend(s) of the node (\(which)) stopped for \(seconds) s; \(members.count) members "
                + "held, \(Self.joinsPerSecond) joins/s",
            startSeconds: offset, endSeconds: offset + seconds)
        try await sleepUntil(stopAt)
        report.startSeconds = NIODeadline.now().seconds(since: origin)
        for (slot, backend) in backends.enumerated() {
            StoppedBackends.note(backend.pid, slot: slot)
            kill(backend.pid, SIGSTOP)
        }
        try? await sleepUntil(continueAt)
        for (slot, backend) in backends.enumerated() {
            kill(backend.pid, SIGCONT)
            StoppedBackends.note(0, slot: slot)
        }
        report.endSeconds = NIODeadline.now().seconds(since: origin)
        report.stoppedSeconds = report.endSeconds - report.startSeconds
        report.stoppedBackends = backends.map { "\($0.pid) (\($0.role))" }

        var acknowledged: [String] = []
        for (device, answer) in await joining.value {
            do {
                _ = try await answer.get()
                acknowledged.append(device)
            } catch {
                report.fail(error)
            }
        }
        report.joins = acknowledged.count
        report.joinsAcknowledged = acknowledged.count
        try await check(acknowledged: acknowledged, into: &report)
        return report
    }

    /// Heartbeats and connections of every member, and the acknowledged joins in the database.
    private func check(acknowledged: [String], into report: inout FloorLatencyLoadReport) async throws {
        var disconnected = 0
        var longestGap: Int64 = 0
        var firstClose: String?
        for member in members {
            let health = try await member.health()
            longestGap = max(longestGap, health.longestGapNanoseconds)
            if let closed = health.closed {
                disconnected += 1
                if firstClose == nil { firstClose = closed }
            }
        }
        report.membersConnected = members.count - disconnected
        report.membersDisconnected = disconnected
        report.longestHeartbeatGapMs = Double(longestGap) / 1e6
        if let firstClose { report.firstFailure = report.firstFailure ?? "a held member: \(firstClose)" }
        let rows = try await postgres.query(
            "SELECT m.device FROM membership m JOIN channel c ON c.id = m.channel_id WHERE c.name = '\(Self.channel)'")
        let stored = Set(rows.compactMap(\.first))
        report.acknowledgedJoinsMissingFromDatabase = acknowledged.filter { !stored.contains($0) }.count
    }

    /// The backends serving the node: every client backend but psql's own; with `which` "store", not the one the
    /// node's row names as its cluster connection (`node.backend_pid`).
    private func nodeBackends() async throws -> [(pid: Int32, role: String)] {
        let rows = try await postgres.query(
            """
            SELECT a.pid, CASE WHEN a.pid IN (SELECT backend_pid FROM node WHERE backend_pid IS NOT NULL) \
            THEN 'cluster' ELSE 'store' END FROM pg_stat_activity a \
            WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
            """)
        let all = rows.compactMap { row -> (pid: Int32, role: String)? in
            guard row.count == 2, let pid = Int32(row[0]) else { return nil }
            return (pid, row[1])
        }
        return Array((which == "all" ? all : all.filter { $0.role == "store" }).prefix(4))
    }
}
#endif
