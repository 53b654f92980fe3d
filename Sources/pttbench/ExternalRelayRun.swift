#if os(Linux)
import ArgumentParser
import Foundation

extension PTTBench {
    /// The same load against a relay pttbench did not start (e.g. the C reference relay): synthetic SSRCs, no
    /// control plane, no floor, plain RTP. The relay must learn listeners from their RTCP keep-alives and send
    /// each one its stream with SSRC = keep-alive SSRC ^ 0x80000000, as the reference relay does.
    func measureExternal(port: Int, payloads: [[UInt8]]) async throws -> BenchReport {
        guard load.security == "none" else {
            throw ValidationError("--external-relay measures plain RTP only: add --security none")
        }
        let members = (0..<load.listeners).map { index -> MemberMedia in
            let ssrc = 0x1000_0000 + UInt32(index)
            return MemberMedia(ssrc: ssrc, listenSSRC: ssrc ^ 0x8000_0000, key: [])
        }
        let pid = external.externalPid ?? 0
        let engine = try LoadEngine(
            loadConfiguration(
                relayPort: port, listeners: members,
                talker: MemberMedia(ssrc: 0x0FFF_0001, listenSSRC: 0x8FFF_0001, key: []),
                payloads: payloads, serverPID: pid))
        engine.start()
        defer { engine.command.store(2, ordering: .releasing) }
        try await Task.sleep(for: .milliseconds(1_500))  // the keep-alives at 0, 50, 200, 500 and 1000 ms
        let quietDeadline = ContinuousClock.now + .milliseconds(Int(setup.waitQuiet * 1000))
        var background = try await Self.coreBusy(
            serverCore: placement.measuredServerCore, benchCore: placement.measuredBenchCore)
        while max(background.server, background.bench) > setup.quietThreshold, ContinuousClock.now < quietDeadline {
            background = try await Self.coreBusy(
                serverCore: placement.measuredServerCore, benchCore: placement.measuredBenchCore)
        }
        let dropsBefore = ProcStats.udpDrops(ports: Set(engine.listenerPorts + [port]))
        let rssBefore = pid > 0 ? ProcStats.memoryKB(pid: pid, field: "VmRSS") : nil
        engine.command.store(1, ordering: .releasing)
        let runDeadline = ContinuousClock.now + .milliseconds(Int((load.seconds + 30) * 1000))
        while !engine.finished.load(ordering: .acquiring) {
            if ContinuousClock.now > runDeadline {
                throw BenchError("the run did not finish within \(load.seconds + 30) s")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let result = engine.result
        if let failure = result.failure { throw BenchError("load engine: \(failure)") }
        let dropsAfter = ProcStats.udpDrops(ports: Set(engine.listenerPorts + [port]))
        var report = BenchReport(
            listeners: load.listeners, security: "none", mode: load.modeName, result: result,
            offeredInputRate: load.offeredRate, floodWindow: load.flood ? load.floodWindow : nil,
            payloadBytes: payloads.map(\.count).reduce(0, +) / payloads.count)
        report.backgroundServerCoreBusyPercent = background.server
        report.backgroundBenchCoreBusyPercent = background.bench
        report.arrivalClock = receiving.arrivalClock
        if pid > 0 {
            report.serverMaxRSSMB = ProcStats.memoryKB(pid: pid, field: "VmHWM").map { Double($0) / 1024 }
            report.serverRSSMB = ProcStats.memoryKB(pid: pid, field: "VmRSS").map { Double($0) / 1024 }
            report.serverRSSBeforeRunMB = rssBefore.map { Double($0) / 1024 }
            report.serverThreads = ProcStats.threadCount(pid: pid)
        }
        report.relaySocketDrops = (dropsAfter[port] ?? 0) - (dropsBefore[port] ?? 0)
        report.listenerSocketDrops = engine.listenerPorts.reduce(0) {
            $0 + (dropsAfter[$1] ?? 0) - (dropsBefore[$1] ?? 0)
        }
        report.floorAtEnd = "n/a"
        report.serverEnding =
            "external relay on port \(port), pid \(pid > 0 ? String(pid) : "not given") (left running)"
        report.machine = BenchReport.Machine.current(
            serverCPU: placement.pinnedServerCPU, benchCPU: placement.pinnedBenchCPU)
        return report
    }
}
#endif
