#if os(Linux)
import Foundation
import Glibc
import NIOCore
import NIOPosix
import PTTAdmin
import PTTProtocol

/// One run of `pttbench floor-latency`: a fresh pttd (TLS, loopback, ports read back), the measuring member and a
/// listener in channel "floor", the scenario's load made ready, then both at once; the figures.
struct FloorLatencyRun {
    let scenario: FloorLatencyScenario
    let options: FloorLatencyBench

    /// The figures of one run.
    struct Result: Codable {
        var scenario: String
        var run: Int
        /// /proc/loadavg (1, 5, 15 minutes) just before pttd was started.
        var loadAverage: [Double]
        var requests: Int
        var latency: FloorLatencySummary
        /// The samples whose request was written inside the load's window.
        var duringLoad: FloorLatencySummary?
        var load: FloorLatencyLoadReport?
        /// pttd's own share of the run's grants of the measured kind (its `ptt_floor_grant_seconds`).
        var serverShare: FloorLatencyServerShare?
        var seconds: Double
        var problems: [String] = []
    }

    func measure(run: Int) async throws -> Result {
        let loadAverage = Self.loadAverage()
        let postgres = scenario == .postgresStop ? try await FloorLatencyPostgres.start() : nil
        let server: ServerProcess
        do {
            server = try await ServerProcess.start(
                .init(
                    executable: options.executable, core: nil, security: "srtp", maxTalkTimeMs: 600_000,
                    maxConnections: 10_000, logLevel: options.serverLogLevel, tls: true, cluster: postgres?.url))
        } catch {
            await postgres?.stop()
            throw error
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let connections = FloorLatencyConnections()
        let outcome: Swift.Result<Result, Error>
        do {
            outcome = .success(
                try await measure(
                    server: server, postgres: postgres, group: group, connections: connections, run: run,
                    loadAverage: loadAverage))
        } catch {
            outcome = .failure(error)
        }
        StoppedBackends.continueAll()
        await connections.closeAll()
        let stop = await server.stop()
        try? await group.shutdownGracefully()
        await postgres?.stop()
        switch outcome {
        case .success(var result):
            if stop.killed { result.problems.append("pttd did not stop within 5 s of SIGTERM and was killed") }
            if !options.keep { server.removeDataDirectory() }
            return result
        case .failure(let error):
            throw BenchError(
                "\(scenario.rawValue) run \(run): \(error)\npttd: \(stop.ending); data kept in \(server.dataDirectory); "
                    + "log:\n\(ServerProcess.tail(of: server.logPath))")
        }
    }

    private func measure(
        server: ServerProcess, postgres: FloorLatencyPostgres?, group: EventLoopGroup,
        connections: FloorLatencyConnections, run: Int, loadAverage: [Double]
    ) async throws -> Result {
        let admin = AdminClient(baseURL: server.runtime.adminURL, token: server.adminToken, timeout: .seconds(30))
        if scenario == .postgresStop { try await Self.reload(server, admin: admin, ["heartbeatIntervalMs": 1000]) }
        let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: "bench"))
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: "floor"))
        guard server.runtime.tls, let fingerprint = server.runtime.fingerprint else {
            throw BenchError("pttd runs without TLS, or runtime.json has no fingerprint")
        }
        let probeLoop = group.next()
        let context = FloorLatencyContext(
            server: server, admin: admin,
            address: try SocketAddress(ipAddress: "127.0.0.1", port: server.runtime.controlPort),
            security: try .pinned(to: fingerprint), secret: user.secret, eventLoop: group.next(),
            connections: connections, loadSeconds: options.loadSeconds ?? scenario.defaultLoadSeconds)

        if scenario == .emergency {
            let emergency = try await FloorLatencyEmergency.prepare(
                context, members: options.members ?? 1_000, probeLoop: probeLoop,
                pause: .milliseconds(options.pauseMilliseconds), held: .milliseconds(options.heldMilliseconds))
            var result = try await measure(emergency: emergency, run: run, loadAverage: loadAverage)
            result.serverShare = await Self.serverShare(admin, request: "emergency", into: &result.problems)
            return result
        }
        // The measuring member and a listener (a lone member is refused the floor: nobody would hear it).
        let joinFloor = try ControlFrame(ControlMessage.join(Join(channel: "floor")).withID(1)).bytes
        let listener = try await context.connect(1, prefix: "floor-listener")[0]
        _ = try await listener.request(joinFloor, id: 1, answers: ["joined"], timeout: .seconds(30)).get()
        let probeConnection = try await FloorLatencyConnection.connect(
            to: context.address, security: context.security, hello: try context.hello("floor-probe"),
            eventLoop: probeLoop, timeout: .seconds(30))
        connections.add(probeConnection)
        _ = try await probeConnection.request(joinFloor, id: 1, answers: ["joined"], timeout: .seconds(30)).get()
        let probe = FloorLatencyProbe(
            connection: probeConnection, channel: "floor", pause: .milliseconds(options.pauseMilliseconds))

        let load: (any FloorLatencyLoad)? =
            switch scenario {
            case .quiet: nil
            case .joins: try await FloorLatencyJoinStorm.prepare(context, members: options.members ?? 1_000)
            case .recording: try await FloorLatencyRecording.prepare(context)
            case .postgresStop:
                try await FloorLatencyPostgresStop.prepare(
                    context, postgres: postgres!, members: options.members ?? 50, which: options.stopBackends)
            case .churn: try await FloorLatencyChurn.prepare(context, clients: options.members ?? 200)
            case .emergency: nil  // measured above
            }
        var result = try await measure(probe: probe, load: load, run: run, loadAverage: loadAverage)
        result.serverShare = await Self.serverShare(admin, request: "floor-request", into: &result.problems)
        return result
    }

    /// pttd's `ptt_floor_grant_seconds` for `request`, read from /metrics at the run's end.
    private static func serverShare(
        _ admin: AdminClient, request: String, into problems: inout [String]
    ) async -> FloorLatencyServerShare? {
        do {
            let share = FloorLatencyServerShare(metrics: try await admin.getText("/metrics"), request: request)
            if share == nil { problems.append("pttd's /metrics has no ptt_floor_grant_seconds for \(request)") }
            return share
        } catch {
            problems.append("pttd's /metrics could not be read: \(error)")
            return nil
        }
    }

    /// The probe and the load at once; the probe stops after `--requests` cycles, 0.5 s after the load has ended,
    /// or at `--time-limit`.
    private func measure(
        probe: FloorLatencyProbe, load: (any FloorLatencyLoad)?, run: Int, loadAverage: [Double]
    ) async throws -> Result {
        let origin = NIODeadline.now()
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(options.seconds * 1000))
        let loadDone = LoadDone()
        let loadTask = Task { () throws -> FloorLatencyLoadReport? in
            defer { loadDone.mark() }
            return try await load?.run(origin: origin, offset: scenario.loadOffset)
        }
        let samples: [FloorLatencyProbe.Sample]
        do {
            samples = try await probe.run(
                requests: options.requests, origin: origin, deadline: deadline, timeout: .seconds(30),
                enough: { load != nil && loadDone.endedBefore(NIODeadline.now() - .milliseconds(500)) })
        } catch {
            loadTask.cancel()
            _ = try? await loadTask.value
            throw error
        }
        let report = try await loadTask.value
        var result = Result(
            scenario: scenario.rawValue, run: run, loadAverage: loadAverage, requests: options.requests,
            latency: FloorLatencySummary(samples), duringLoad: nil, load: report,
            seconds: PTTBench.seconds(ContinuousClock.now - started))
        if let report {
            let window = report.startSeconds...max(report.startSeconds, report.endSeconds)
            result.duringLoad = FloorLatencySummary(samples.filter { window.contains($0.sentSeconds) })
            if result.duringLoad?.count == 0 { result.problems.append("no floor request fell inside the load") }
            if report.failures > 0 {
                result.problems.append("\(report.failures) load requests failed: \(report.firstFailure ?? "?")")
            }
            if (report.membersDisconnected ?? 0) > 0 {
                result.problems.append("\(report.membersDisconnected!) held members were disconnected")
            }
            if (report.acknowledgedJoinsMissingFromDatabase ?? 0) > 0 {
                result.problems.append(
                    "\(report.acknowledgedJoinsMissingFromDatabase!) joins answered `joined` are not in the database")
            }
        }
        if samples.count < options.requests && load == nil {
            result.problems.append("only \(samples.count) of \(options.requests) cycles within --time-limit")
        }
        return result
    }

    /// The emergency's cycles: no load beside them (the channel's size is the load).
    private func measure(emergency: FloorLatencyEmergency, run: Int, loadAverage: [Double]) async throws -> Result {
        let origin = NIODeadline.now()
        let started = ContinuousClock.now
        let samples = try await emergency.run(
            requests: options.requests, origin: origin,
            deadline: started + .milliseconds(Int(options.seconds * 1000)), timeout: .seconds(30))
        var result = Result(
            scenario: scenario.rawValue, run: run, loadAverage: loadAverage, requests: options.requests,
            latency: FloorLatencySummary(samples), duringLoad: nil, load: nil,
            seconds: PTTBench.seconds(ContinuousClock.now - started))
        if samples.count < options.requests {
            result.problems.append("only \(samples.count) of \(options.requests) cycles within --time-limit")
        }
        return result
    }

    /// Merges `settings` into DATA/config.json and reloads pttd (as KitBenchServer does).
    static func reload(_ server: ServerProcess, admin: AdminClient, _ settings: [String: Int]) async throws {
        let path = server.dataDirectory + "/config.json"
        var config =
            (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            ?? [:]
        for (key, value) in settings { config[key] = value }
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        let report: ReloadReport = try await admin.post("/api/reload", body: AdminClient.Empty())
        let missing = settings.keys.filter { key in !report.applied.contains { $0.hasPrefix(key) } }
        guard missing.isEmpty else { throw BenchError("pttd's reload did not apply \(missing.sorted())") }
    }

    static func loadAverage() -> [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }
}
#endif
