#if os(Linux)
import Foundation
import NIOCore
import PTTAdmin
import PTTKit
import PTTProtocol

/// `--scenario recording`: channel "recorded" has recording on; a talker (PTTKit, SRTP) takes its floor and sends
/// 20 ms Opus packets at 50 packets/s in 2 s bursts (released, 200 ms apart) for `loadSeconds`, each burst written
/// to a file and a row by pttd's recorder, while the measuring member works the floor of its own channel. A light
/// listener keeps the talker from being the channel's only member.
struct FloorLatencyRecording: FloorLatencyLoad {
    let talker: PTTClient
    let channel: ChannelHandle
    let admin: AdminClient
    let seconds: Double

    static let channelName = "recorded"
    static let packetsPerBurst = 100

    static func prepare(_ context: FloorLatencyContext) async throws -> FloorLatencyRecording {
        let admin = context.admin
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: channelName))
        let switched: ChannelRecording = try await admin.put(
            "/api/channels/\(channelName)/recording", body: ChannelRecording(recording: true))
        guard switched.recording else { throw BenchError("pttd did not switch recording on for \(channelName)") }
        let listener = try await context.connect(1, prefix: "recorded-listener")[0]
        let join = try ControlFrame(ControlMessage.join(Join(channel: channelName)).withID(1)).bytes
        _ = try await listener.request(join, id: 1, answers: ["joined"], timeout: .seconds(30)).get()

        let server = context.server
        let endpoint = ServerEndpoint(host: "127.0.0.1", port: server.runtime.controlPort)
        let security: PTTClient.Security
        if context.security.tls != nil, let fingerprint = server.runtime.fingerprint {
            let path = server.dataDirectory + "/bench-known_hosts"
            try Data("\(endpoint.description) \(fingerprint)\n".utf8).write(to: URL(fileURLWithPath: path))
            security = .tls(KnownHosts(path: path))
        } else {
            security = .plaintext
        }
        let talker = try await PTTClient.connect(
            to: endpoint, credentials: PTTCredentials(user: "bench", secret: context.secret, device: "talker"),
            security: security)
        do {
            let channel = try await talker.join(channelName)
            return FloorLatencyRecording(talker: talker, channel: channel, admin: admin, seconds: context.loadSeconds)
        } catch {
            await talker.close()
            throw error
        }
    }

    func run(origin: NIODeadline, offset: Double) async throws -> FloorLatencyLoadReport {
        let outcome: Result<FloorLatencyLoadReport, Error>
        do {
            outcome = .success(try await talk(origin: origin, offset: offset))
        } catch {
            outcome = .failure(error)
        }
        await talker.close()
        return try outcome.get()
    }

    private func talk(origin: NIODeadline, offset: Double) async throws -> FloorLatencyLoadReport {
        try await sleepUntil(.after(origin, seconds: offset))
        let end = NIODeadline.after(origin, seconds: offset + seconds)
        var sent = 0
        var burst = 0
        while NIODeadline.now() < end, burst < 1_000 {
            let outcome = try await channel.requestFloor()
            guard case .granted = outcome else { throw BenchError("the talker's floor request: \(outcome)") }
            for index in 0..<Self.packetsPerBurst {
                try await channel.transmit(opus: KitWakeMembers.packet(iteration: burst, index: index))
                sent += 1
            }
            try await channel.releaseFloor()
            burst += 1
            try await Task.sleep(for: .milliseconds(200))
        }
        var report = FloorLatencyLoadReport(
            what:
                "a talker sends 50 Opus packets/s in 2 s bursts to recorded channel \(Self.channelName) for \(seconds) s",
            startSeconds: offset, endSeconds: NIODeadline.now().seconds(since: origin))
        report.packetsSent = sent
        // Every burst's file closed (its row no longer `recording`), at most 10 s after the last release.
        let deadline = ContinuousClock.now + .seconds(10)
        var bursts: [RecordedBurstInfo] = []
        repeat {
            bursts = try await admin.get("/api/channels/\(Self.channelName)/bursts?limit=10000")
            if bursts.count >= burst, !bursts.contains(where: { $0.state == .recording }) { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        report.burstsRecorded = bursts.count
        report.packetsRecorded = bursts.map(\.packets).reduce(0, +)
        return report
    }
}
#endif
