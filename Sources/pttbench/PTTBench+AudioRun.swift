#if os(Linux)
import Foundation
import NIOCore
import PTTAdmin
import PTTKit
import PTTProtocol

extension PTTBench {
    /// The audio run: joins, waits until the relay hears every listener, sends, and stops pttd under load.
    func measure(
        server: ServerProcess, group: EventLoopGroup, payloads: [[UInt8]],
        clients: inout [ControlClient]
    ) async throws -> BenchReport {
        guard let mediaPort = server.runtime.mediaPort else { throw BenchError("runtime.json has no mediaPort") }
        let admin = AdminClient(baseURL: server.runtime.adminURL, token: server.adminToken, timeout: .seconds(30))
        let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: "bench"))
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: "bench"))
        let setupBudget = setup.setupBudget(listeners: load.listeners)
        let setupDeadline = ContinuousClock.now + .milliseconds(Int(setupBudget * 1000))

        // Join: N listeners, the late listeners and the talker (last), connectParallelism at a time.
        let setupStart = ContinuousClock.now
        let liveCount = load.listeners
        let lateCount = late.lateListeners
        let members = try await joinAll(
            count: liveCount + lateCount + 1, channel: "bench", user: user, server: server, group: group,
            deadline: setupDeadline,
            budget: setupBudget, clients: &clients
        ) {
            $0 == liveCount + lateCount
                ? "talker"
                : $0 < liveCount ? String(format: "listener-%05d", $0) : String(format: "late-%05d", $0 - liveCount)
        }
        let joinSeconds = Self.seconds(ContinuousClock.now - setupStart)
        let serverJoinCPU = ProcStats.processCPUSeconds(pid: server.pid)
        progress("\(members.count) members joined in \(String(format: "%.1f", joinSeconds)) s")
        let joined = members.map(\.1)
        try await scan(members.prefix(min(load.scanners, liveCount)).map(\.0))
        let talkerClient = members[liveCount + lateCount].0
        func media(_ joined: Joined) throws -> MemberMedia {
            var key: [UInt8] = []
            if load.security == "srtp" {
                guard joined.media.security == .srtp, let text = joined.media.key, let data = Data(base64Encoded: text),
                    data.count == 30
                else {
                    throw BenchError(
                        "joined has media security \(joined.media.security) and no usable key; expected srtp")
                }
                key = Array(data)
            } else if joined.media.security != .plain {
                throw BenchError("joined has media security \(joined.media.security); expected none")
            }
            return MemberMedia(ssrc: joined.media.ssrc, listenSSRC: joined.media.listenSSRC, key: key)
        }
        guard joined[0].media.port == mediaPort else {
            throw BenchError("joined names media port \(joined[0].media.port), runtime.json \(mediaPort)")
        }

        let engine = try LoadEngine(
            loadConfiguration(
                relayPort: mediaPort, listeners: try joined.prefix(liveCount).map(media),
                talker: try media(joined[liveCount + lateCount]),
                lateListeners: try joined[liveCount..<(liveCount + lateCount)].map(media),
                payloads: payloads, serverPID: server.pid, lingerAfterRun: daemon.stopUnderLoad > 0))
        engine.start()
        defer { engine.command.store(2, ordering: .releasing) }

        // Wait until the relay knows every listener's address (the late listeners stay unheard).
        let reachStart = ContinuousClock.now
        var reachable = 0
        var lateReachable = 0
        let listenerSSRCs = Set(joined.prefix(liveCount).map(\.media.ssrc))
        let lateSSRCs = Set(joined[liveCount..<(liveCount + lateCount)].map(\.media.ssrc))
        while true {
            let detail: ChannelDetail = try await admin.get("/api/channels/bench")
            reachable = detail.members.filter { listenerSSRCs.contains($0.ssrc) && $0.audioReachable }.count
            lateReachable = detail.members.filter { lateSSRCs.contains($0.ssrc) && $0.audioReachable }.count
            if reachable == load.listeners { break }
            if ContinuousClock.now > setupDeadline {
                throw BenchError(
                    "the relay heard only \(reachable) of \(load.listeners) listeners within \(setupBudget) s")
            }
            if engine.finished.load(ordering: .acquiring) {
                throw BenchError("load engine stopped: \(engine.result.failure ?? "?")")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let reachSeconds = Self.seconds(ContinuousClock.now - reachStart)
        progress("relay heard all \(load.listeners) listeners after \(String(format: "%.1f", reachSeconds)) s")
        let rssBefore = ProcStats.memoryKB(pid: server.pid, field: "VmRSS")
        let exposition = try await admin.getText("/metrics")
        let metricsBefore = RelayCounters(exposition)
        let catchUpBefore = RelayCounters(exposition, prefix: "ptt_catchup_")
        let socketPorts = Set(engine.listenerPorts + engine.latePorts + [mediaPort])
        let dropsBefore = ProcStats.udpDrops(ports: socketPorts)

        // Other processes on these cores distort every figure: measure them (1 s), and wait for quiet if asked.
        let quietDeadline = ContinuousClock.now + .milliseconds(Int(setup.waitQuiet * 1000))
        var background = try await Self.coreBusy(
            serverCore: placement.measuredServerCore, benchCore: placement.measuredBenchCore)
        while max(background.server, background.bench) > setup.quietThreshold, ContinuousClock.now < quietDeadline {
            progress(
                String(format: "waiting for quiet: cores %.1f %% / %.1f %% busy", background.server, background.bench))
            background = try await Self.coreBusy(
                serverCore: placement.measuredServerCore, benchCore: placement.measuredBenchCore)
        }

        let answer = try await talkerClient.request(.floorRequest(FloorCommand(channel: "bench")))
        guard case .floorGranted = answer else { throw BenchError("floor request answered \(answer.type)") }
        try await Task.sleep(for: .milliseconds(200))
        progress(load.flood ? "flooding for \(load.seconds) s" : "sending \(load.rate) packets/s for \(load.seconds) s")

        engine.command.store(1, ordering: .releasing)
        let runDeadline = ContinuousClock.now + .milliseconds(Int((load.seconds + 30) * 1000))
        var maxRSSWhileSending = 0
        while !engine.finished.load(ordering: .acquiring) {
            if ContinuousClock.now > runDeadline {
                engine.command.store(2, ordering: .releasing)
                throw BenchError("the run did not finish within \(load.seconds + 30) s")
            }
            if !server.isRunning { break }
            maxRSSWhileSending = max(maxRSSWhileSending, ProcStats.memoryKB(pid: server.pid, field: "VmRSS") ?? 0)
            try await Task.sleep(for: .milliseconds(50))
        }
        let peakAtEnd = ProcStats.memoryKB(pid: server.pid, field: "VmHWM")
        guard server.isRunning else {
            engine.command.store(2, ordering: .releasing)
            throw BenchError("pttd died during the run (exit status \(server.process.terminationStatus))")
        }
        while !engine.finished.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
        let result = engine.result
        if let failure = result.failure { throw BenchError("load engine: \(failure)") }

        let expositionAfter = try await admin.getText("/metrics")
        let metricsAfter = RelayCounters(expositionAfter)
        let dropsAfter = ProcStats.udpDrops(ports: socketPorts)
        let detail: ChannelDetail = try await admin.get("/api/channels/bench")
        // Stopping under load needs the floor: the talker keeps it.
        if daemon.stopUnderLoad == 0 { talkerClient.send(.floorRelease(FloorCommand(channel: "bench"))) }

        var report = BenchReport(
            listeners: load.listeners, security: load.security, mode: load.modeName, result: result,
            offeredInputRate: load.offeredRate, floodWindow: load.flood ? load.floodWindow : nil,
            payloadBytes: payloads.map(\.count).reduce(0, +) / payloads.count)
        if load.scanners > 0 { report.scanningListeners = min(load.scanners, liveCount) }
        report.backgroundServerCoreBusyPercent = background.server
        report.backgroundBenchCoreBusyPercent = background.bench
        report.arrivalClock = receiving.arrivalClock
        report.setupJoinSeconds = joinSeconds
        report.serverCPUSecondsUntilJoined = serverJoinCPU
        report.setupReachSeconds = reachSeconds
        report.serverMaxRSSMB = ProcStats.memoryKB(pid: server.pid, field: "VmHWM").map { Double($0) / 1024 }
        report.serverMaxRSSWhileSendingMB = maxRSSWhileSending > 0 ? Double(maxRSSWhileSending) / 1024 : nil
        report.serverPeakRSSAtEndOfSendingMB = peakAtEnd.map { Double($0) / 1024 }
        report.controlTLS = daemon.tls
        report.serverRSSMB = ProcStats.memoryKB(pid: server.pid, field: "VmRSS").map { Double($0) / 1024 }
        report.serverRSSBeforeRunMB = rssBefore.map { Double($0) / 1024 }
        report.serverThreads = ProcStats.threadCount(pid: server.pid)
        report.relayCounters = metricsAfter.minus(metricsBefore)
        report.relaySocketDrops = (dropsAfter[mediaPort] ?? 0) - (dropsBefore[mediaPort] ?? 0)
        report.listenerSocketDrops = engine.listenerPorts.reduce(0) {
            $0 + (dropsAfter[$1] ?? 0) - (dropsBefore[$1] ?? 0)
        }
        report.floorAtEnd = detail.floor.rawValue
        if let start = late.windowStart, let latency = result.windowLatency {
            report.catchUpWindow = CatchUpWindowReport(
                from: start, seconds: min(LateListenerOptions.windowSeconds, load.seconds - start),
                packets: result.windowPackets,
                latency: latency)
        }
        if let received = result.late {
            report.lateListeners = LateListenerReport(
                listeners: lateCount, catchUpMode: late.catchUpMode ?? "late-joiners",
                catchUpSpeed: late.catchUpSpeed, lateAfterSeconds: late.lateAfter,
                reachableBeforeSending: lateReachable,
                reachableAtEnd: detail.members.filter { lateSSRCs.contains($0.ssrc) && $0.audioReachable }.count,
                socketDrops: engine.latePorts.reduce(0) { $0 + (dropsAfter[$1] ?? 0) - (dropsBefore[$1] ?? 0) },
                received: received,
                catchUp: CatchUpFigures(
                    before: catchUpBefore, after: RelayCounters(expositionAfter, prefix: "ptt_catchup_")))
        }
        report.machine = BenchReport.Machine.current(
            serverCPU: placement.pinnedServerCPU, benchCPU: placement.pinnedBenchCPU)

        if daemon.stopUnderLoad > 0 {
            // Send again and stop pttd while it relays: shutdown must not wait for the load to end.
            engine.command.store(3, ordering: .releasing)
            let loadEnd = ContinuousClock.now + .milliseconds(Int(daemon.stopUnderLoad * 1000))
            while ContinuousClock.now < loadEnd, server.isRunning {
                try await Task.sleep(for: .milliseconds(50))
            }
            progress("SIGTERM to pttd while sending")
            let sentBefore = engine.tailPacketsSent.load(ordering: .relaxed)
            var stop = await server.stop(underLoad: true)
            stop.packetsSentBeforeSIGTERM = sentBefore
            report.serverStop = stop
            report.serverEnding =
                stop.ending + " (\(sentBefore) packets sent in the \(daemon.stopUnderLoad) s before SIGTERM)"
        }
        report.checkProblems()
        return report
    }

    static func coreBusy(serverCore: Int, benchCore: Int) async throws -> (server: Double, bench: Double) {
        let before = CPUSnapshot.take(serverPID: 0, serverCore: serverCore, benchCore: benchCore)
        try await Task.sleep(for: .seconds(1))
        let after = CPUSnapshot.take(serverPID: 0, serverCore: serverCore, benchCore: benchCore)
        func percent(_ a: (busy: Double, total: Double), _ b: (busy: Double, total: Double)) -> Double {
            b.total > a.total ? 100 * (b.busy - a.busy) / (b.total - a.total) : 0
        }
        return (percent(before.serverCore, after.serverCore), percent(before.benchCore, after.benchCore))
    }
}
#endif
