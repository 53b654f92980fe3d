#if os(Linux)
import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import PTTAdmin
import PTTKit
import PTTProtocol

/// `--nodes N --cluster URL`: one channel over N pttd nodes on one PostgreSQL. The talker joins the first node
/// (which owns the channel), the listeners the nodes in turn; every packet crosses to each other node once.
extension PTTBench {
    /// What one node did during the sending.
    struct NodeFigures: Codable {
        var node: String
        var listeners: Int
        var cpuSeconds: Double
        var cpuPercentOfCore: Double
        var forwarded: Int
        var linkSent: Int
        var linkReceived: Int
    }

    func runCluster(payloads: [[UInt8]]) async throws {
        guard let cluster = daemon.cluster else { throw ValidationError("--nodes needs --cluster postgres://…") }
        var servers: [ServerProcess] = []
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var clients: [ControlClient] = []
        var outcome: Result<(BenchReport, [NodeFigures]), Error>
        do {
            for index in 1...daemon.nodes {
                let server = try await ServerProcess.start(
                    .init(
                        executable: placement.executable, core: nil, security: load.security,
                        maxTalkTimeMs: Int((load.seconds + 600) * 1000),
                        maxConnections: max(10_000, load.listeners + 100), logLevel: daemon.serverLogLevel,
                        tls: daemon.tls, cluster: cluster, node: "pttbench-\(index)"))
                servers.append(server)
                progress("node pttbench-\(index): pid \(server.pid), data \(server.dataDirectory)")
            }
            outcome = .success(
                try await measureCluster(servers: servers, group: group, payloads: payloads, clients: &clients))
        } catch {
            outcome = .failure(error)
        }
        for client in clients { await client.close() }
        for server in servers.reversed() {
            _ = await server.stop()
            if !output.keep { server.removeDataDirectory() }
        }
        try? await group.shutdownGracefully()
        switch outcome {
        case .success(let (report, nodes)):
            if output.json {
                struct Both: Encodable {
                    var report: BenchReport
                    var nodes: [NodeFigures]
                }
                print(try Both(report: report, nodes: nodes).encodedJSON())
            } else {
                print(report.text())
                print("nodes (the talker on \(nodes[0].node), which owns the channel):")
                for node in nodes {
                    print(
                        String(
                            format:
                                "  %@: %d listeners, CPU %.2f s (%.1f %% of a core), %d copies to listeners, %d to other nodes, %d from them",
                            node.node, node.listeners, node.cpuSeconds, node.cpuPercentOfCore, node.forwarded,
                            node.linkSent, node.linkReceived))
                }
            }
        case .failure(let error):
            FileHandle.standardError.write(Data("pttbench: \(error)\n".utf8))
            for server in servers {
                FileHandle.standardError.write(
                    Data("last lines of \(server.logPath):\n\(ServerProcess.tail(of: server.logPath))\n".utf8))
            }
            throw ExitCode(1)
        }
    }

    private func measureCluster(
        servers: [ServerProcess], group: EventLoopGroup, payloads: [[UInt8]], clients: inout [ControlClient]
    ) async throws -> (BenchReport, [NodeFigures]) {
        let admins = servers.map {
            AdminClient(baseURL: $0.runtime.adminURL, token: $0.adminToken, timeout: .seconds(30))
        }
        let user: AddUserResponse = try await admins[0].post("/api/users", body: AddUserRequest(name: "bench"))
        let _: ChannelSummary = try await admins[0].post("/api/channels", body: CreateChannelRequest(name: "bench"))
        let setupBudget = setup.setupBudget(listeners: load.listeners)
        let deadline = ContinuousClock.now + .milliseconds(Int(setupBudget * 1000))
        func waitFor(_ what: String, _ check: () async throws -> Bool) async throws {
            while try await !check() {
                if ContinuousClock.now > deadline { throw BenchError("\(what): not within \(setupBudget) s") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        try await waitFor("every node knows the user and the channel") {
            for admin in admins {
                let channels: [ChannelSummary] = try await admin.get("/api/channels")
                if !channels.contains(where: { $0.name == "bench" }) { return false }
            }
            return true
        }

        // The talker first, on the first node: its node owns the channel.
        let talker = try await joinAll(
            count: 1, channel: "bench", user: user, server: servers[0], group: group, deadline: deadline,
            budget: setupBudget, clients: &clients
        ) { _ in "talker" }[0]
        try await waitFor("the first node owns the channel") {
            let channels: [ChannelSummary] = try await admins[0].get("/api/channels")
            return channels.first { $0.name == "bench" }?.owner == "pttbench-1"
        }
        let setupStart = ContinuousClock.now
        var listeners: [(node: Int, joined: Joined)] = []
        for (index, server) in servers.enumerated() {
            let count = load.listeners / servers.count + (index < load.listeners % servers.count ? 1 : 0)
            let base = listeners.count
            let joined = try await joinAll(
                count: count, channel: "bench", user: user, server: server, group: group, deadline: deadline,
                budget: setupBudget, clients: &clients
            ) { String(format: "listener-%05d", base + $0) }
            listeners += joined.map { (index, $0.1) }
        }
        let joinSeconds = Self.seconds(ContinuousClock.now - setupStart)
        progress(
            "\(listeners.count) listeners joined over \(servers.count) nodes in \(String(format: "%.1f", joinSeconds)) s"
        )

        func media(_ joined: Joined) throws -> MemberMedia {
            var key: [UInt8] = []
            if load.security == "srtp" {
                guard let text = joined.media.key, let data = Data(base64Encoded: text) else {
                    throw BenchError("joined has no usable SRTP key")
                }
                key = Array(data)
            }
            return MemberMedia(ssrc: joined.media.ssrc, listenSSRC: joined.media.listenSSRC, key: key)
        }
        let mediaPorts = try servers.map {
            guard let port = $0.runtime.mediaPort else { throw BenchError("runtime.json has no mediaPort") }
            return port
        }
        var configuration = loadConfiguration(
            relayPort: mediaPorts[0], listeners: try listeners.map { try media($0.joined) },
            talker: try media(talker.1), payloads: payloads, serverPID: servers[0].pid)
        configuration.sockets.listenerRelayPorts = listeners.map { mediaPorts[$0.node] }
        let engine = try LoadEngine(configuration)
        engine.start()
        defer { engine.command.store(2, ordering: .releasing) }

        // Every listener heard by its node, as the owner knows it; the owner sends to every other node.
        let others = servers.indices.dropFirst().map { "pttbench-\($0 + 1)" }
        let ssrcs = Set(listeners.map(\.joined.media.ssrc))
        try await waitFor("the owner hears of every listener, and links to every node") {
            if engine.finished.load(ordering: .acquiring) {
                throw BenchError("load engine stopped: \(engine.result.failure ?? "?")")
            }
            let detail: ChannelDetail = try await admins[0].get("/api/channels/bench")
            let heard = detail.members.filter { ssrcs.contains($0.ssrc) && $0.audioReachable }.count
            return heard == listeners.count && (detail.nodeLinks ?? []) == others
        }

        let countersBefore = try await nodeCounters(admins)
        let cpuBefore = servers.map { ProcStats.processCPUSeconds(pid: $0.pid) ?? 0 }
        let answer = try await talker.0.request(.floorRequest(FloorCommand(channel: "bench")))
        guard case .floorGranted = answer else { throw BenchError("floor request answered \(answer.type)") }
        try await Task.sleep(for: .milliseconds(200))
        progress("sending \(load.rate) packets/s for \(load.seconds) s")
        let started = ContinuousClock.now
        engine.command.store(1, ordering: .releasing)
        let runDeadline = ContinuousClock.now + .milliseconds(Int((load.seconds + 30) * 1000))
        while !engine.finished.load(ordering: .acquiring) {
            if ContinuousClock.now > runDeadline {
                throw BenchError("the run did not finish within \(load.seconds + 30) s")
            }
            if let dead = servers.first(where: { !$0.isRunning }) {
                throw BenchError("pttd \(dead.pid) died during the run")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let wall = Self.seconds(ContinuousClock.now - started)
        let cpuAfter = servers.map { ProcStats.processCPUSeconds(pid: $0.pid) ?? 0 }
        let countersAfter = try await nodeCounters(admins)
        let result = engine.result
        if let failure = result.failure { throw BenchError("load engine: \(failure)") }
        let detail: ChannelDetail = try await admins[0].get("/api/channels/bench")
        talker.0.send(.floorRelease(FloorCommand(channel: "bench")))

        var report = BenchReport(
            listeners: load.listeners, security: load.security, mode: load.modeName, result: result,
            offeredInputRate: load.offeredRate, floodWindow: load.flood ? load.floodWindow : nil,
            payloadBytes: payloads.map(\.count).reduce(0, +) / payloads.count)
        report.setupJoinSeconds = joinSeconds
        report.controlTLS = daemon.tls
        report.floorAtEnd = detail.floor.rawValue
        report.arrivalClock = receiving.arrivalClock
        report.serverEnding = "\(servers.count) nodes: their figures follow"
        report.machine = BenchReport.Machine.current(serverCPU: nil, benchCPU: nil)
        report.checkProblems()
        let nodes = servers.indices.map { index in
            let cpu = cpuAfter[index] - cpuBefore[index]
            return NodeFigures(
                node: "pttbench-\(index + 1)", listeners: listeners.filter { $0.node == index }.count,
                cpuSeconds: cpu, cpuPercentOfCore: 100 * cpu / max(wall, 1e-9),
                forwarded: countersAfter[index].forwarded - countersBefore[index].forwarded,
                linkSent: countersAfter[index].linkSent - countersBefore[index].linkSent,
                linkReceived: countersAfter[index].linkReceived - countersBefore[index].linkReceived)
        }
        return (report, nodes)
    }

    private func nodeCounters(
        _ admins: [AdminClient]
    ) async throws -> [(forwarded: Int, linkSent: Int, linkReceived: Int)] {
        var out: [(Int, Int, Int)] = []
        for admin in admins {
            let text = try await admin.getText("/metrics")
            func value(_ name: String) -> Int {
                text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
                    Double($0.split(separator: " ").last ?? "").map { Int($0) }
                } ?? 0
            }
            out.append(
                (
                    value("ptt_media_packets_forwarded_total"), value("ptt_media_link_packets_sent_total"),
                    value("ptt_media_link_packets_received_total")
                ))
        }
        return out
    }
}
#endif
