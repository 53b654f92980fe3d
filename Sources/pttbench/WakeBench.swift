#if os(Linux)
import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTAdmin
import PTTKit
import PTTProtocol

/// `pttbench --wakes N`: how fast the notifier wakes N suspended members when someone takes the floor.
struct WakeBenchOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Measure wakes instead of audio: this many members with only a push-provider (Local Push) connection, 1...5000."
    )
    var wakes: Int?

    @Option(name: .long, help: "With --wakes: talk bursts (floor taken, every member woken, floor released).")
    var bursts = 20
}

/// Wakes that reached the push-provider connections, with their arrival times.
private final class WakeArrivals: Sendable {
    private struct State {
        var arrivals: [UInt64] = []
        var seen: Set<String> = []  // member index + burst: a second wake for one burst is a duplicate
        var duplicates = 0
    }
    private let state = NIOLockedValueBox(State())

    func record(member: Int, burst: String, at nanoseconds: UInt64) {
        state.withLockedValue {
            if $0.seen.insert("\(member)/\(burst)").inserted {
                $0.arrivals.append(nanoseconds)
            } else {
                $0.duplicates += 1
            }
        }
    }

    /// Arrivals so far, and duplicates.
    var snapshot: (arrivals: [UInt64], duplicates: Int) { state.withLockedValue { ($0.arrivals, $0.duplicates) } }
}

extension PTTBench {
    func runWakes(members: Int, bursts: Int) async throws {
        guard (1...5000).contains(members) else { throw ValidationError("--wakes must be 1...5000") }
        guard (1...1000).contains(bursts) else { throw ValidationError("--bursts must be 1...1000") }
        let server = try await ServerProcess.start(
            .init(
                executable: placement.executable, core: placement.pinnedServerCPU, security: "none",
                maxTalkTimeMs: 600_000, maxConnections: members + 100, logLevel: daemon.serverLogLevel))
        progress("pttd pid \(server.pid), data \(server.dataDirectory)")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var clients: [ControlClient] = []
        let outcome: Result<String, Error>
        do {
            outcome = .success(
                try await measureWakes(
                    server: server, group: group, members: members, bursts: bursts, clients: &clients))
        } catch {
            outcome = .failure(error)
        }
        let ending = await server.stop().ending
        for client in clients { await client.close() }
        try? await group.shutdownGracefully()
        switch outcome {
        case .success(let text):
            print(text + "\npttd: \(ending)")
            if !output.keep { server.removeDataDirectory() }
        case .failure(let error):
            FileHandle.standardError.write(
                Data("pttbench: \(error)\npttd: \(ending); log:\n\(ServerProcess.tail(of: server.logPath))\n".utf8))
            throw ExitCode(1)
        }
    }

    private func measureWakes(
        server: ServerProcess, group: EventLoopGroup, members: Int, bursts: Int,
        clients: inout [ControlClient]
    ) async throws -> String {
        let admin = AdminClient(baseURL: server.runtime.adminURL, token: server.adminToken, timeout: .seconds(30))
        let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: "bench"))
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: "bench"))
        let endpoint = ServerEndpoint(host: "127.0.0.1", port: server.runtime.controlPort)
        let arrivals = WakeArrivals()
        func connect(_ device: String, role: ClientRole) async throws -> ControlClient {
            let client = try await ControlClient.connect(
                to: endpoint,
                hello: Hello(user: "bench", secret: user.secret, device: device, role: role, client: "pttbench"),
                security: .plain, timeout: .seconds(30), group: group)
            let reply = try await client.request(.join(Join(channel: "bench")), timeout: .seconds(30))
            guard case .joined = reply else {
                await client.close()
                throw BenchError("join answered \(reply.type)")
            }
            return client
        }

        // N members whose only connection is a push-provider one: none is reachable by audio.
        let setupStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: (Int, ControlClient).self) { tasks in
            var next = 0
            func add() {
                let index = next
                next += 1
                tasks.addTask { (index, try await connect(String(format: "sleeper-%05d", index), role: .pushProvider)) }
            }
            while next < min(setup.connectParallelism, members) { add() }
            while let (index, client) = try await tasks.next() {
                clients.append(client)
                let stream = client.messages
                Task {
                    for await message in stream {
                        guard case .push(let frame) = message, let burst = frame.payload.burst else { continue }
                        arrivals.record(member: index, burst: burst, at: DispatchTime.now().uptimeNanoseconds)
                    }
                }
                if next < members { add() }
            }
        }
        let talker = try await connect("talker", role: .app)
        clients.append(talker)
        progress(
            "\(members) sleepers joined in \(String(format: "%.1f", Self.seconds(ContinuousClock.now - setupStart))) s")

        var latencies = LatencyHistogram()
        defer { latencies.deallocate() }
        var fanOuts: [Double] = []
        var missing = 0
        let cpuBefore = ProcStats.processCPUSeconds(pid: server.pid) ?? 0
        for burst in 0..<bursts {
            let expected = members * (burst + 1)
            let already = arrivals.snapshot.arrivals.count
            let start = DispatchTime.now().uptimeNanoseconds
            let answer = try await talker.request(.floorRequest(FloorCommand(channel: "bench")))
            guard case .floorGranted = answer else { throw BenchError("floor request answered \(answer.type)") }
            let deadline = ContinuousClock.now + .seconds(10)
            while arrivals.snapshot.arrivals.count < expected, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            let theseArrivals = arrivals.snapshot.arrivals.dropFirst(already)
            missing += expected - already - theseArrivals.count
            for arrival in theseArrivals { latencies.record(arrival &- start) }
            if let last = theseArrivals.max() { fanOuts.append(Double(last &- start) / 1e6) }
            _ = try await talker.request(.floorRelease(FloorCommand(channel: "bench")))
        }
        let cpu = (ProcStats.processCPUSeconds(pid: server.pid) ?? 0) - cpuBefore
        let totals: WakeTotals = try await admin.get("/api/wakes")
        let rss = ProcStats.memoryKB(pid: server.pid, field: "VmRSS").map { Double($0) / 1024 } ?? 0
        fanOuts.sort()
        func ms(_ value: Double?) -> String { value.map { String(format: "%.2f ms", $0) } ?? "-" }
        let received = latencies.total
        return """
            wakes: \(members) push-provider members, \(bursts) bursts, \(members * bursts) wakes expected
            received: \(received), missing: \(missing), duplicates: \(arrivals.snapshot.duplicates)
            floor request sent -> wake received: p50 \(ms(latencies.percentileMilliseconds(0.5))), p99 \(ms(latencies.percentileMilliseconds(0.99))), max \(ms(Double(latencies.maxNanoseconds) / 1e6))
            floor request sent -> last member woken: median \(ms(fanOuts.isEmpty ? nil : fanOuts[fanOuts.count / 2])), max \(ms(fanOuts.last))
            pttd CPU during the bursts: \(String(format: "%.3f", cpu)) s (\(String(format: "%.1f", received > 0 ? cpu * 1e6 / Double(received) : 0)) µs per wake), RSS \(String(format: "%.1f", rss)) MB
            server counts: \(totals.counts.map { "\($0.kind) \($0.transport) \($0.outcome)\($0.reason.isEmpty ? "" : " \($0.reason)") \($0.count)" }.joined(separator: ", "))
            """
    }
}
#endif
