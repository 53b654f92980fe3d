import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

extension Stress {
    /// A client that stops reading cannot grow the server's memory: what waits for its socket is bounded
    /// in bytes, and past the bound it is disconnected with a counted reason.
    @Suite("Slow readers")
    struct SlowReaderTests {
        @Test("members that stop reading while another floods floor events are disconnected; the talker is not")
        func slowReadersDisconnected() async throws {
            try await withTestServer(configure: {
                $0.limits.outboundQueueBytes = ConnectionLimits.minimumOutboundQueueBytes
                $0.heartbeatInterval = .seconds(60)
            }) { server in
                let secret = try await server.addUser("alice")
                var sleepers: [SilentConnection] = []
                for index in 0..<4 {
                    let sleeper = try await SilentConnection.connect(to: server.endpoint)
                    try await sleeper.write([
                        .hello(Hello(user: "alice", secret: secret, device: "sleeper-\(index)")),
                        .join(Join(id: 1, channel: "deck")),
                    ])
                    sleepers.append(sleeper)
                }
                let talker = try await DiscardingConnection.connect(to: server.endpoint)
                try await talker.write([
                    .hello(Hello(user: "alice", secret: secret, device: "talker")), .join(Join(id: 1, channel: "deck")),
                ])
                try await eventually("five members in deck") {
                    let detail: ChannelDetail? = try? await server.admin.get("/api/channels/deck")
                    return detail?.members.count == 5
                }

                // Floor request and release, 50 of each per write, until the sleepers are cut off (bounded in
                // rounds and time: without a bound on what waits for them, this never ends).
                let batch: [ControlMessage] = (0..<50).flatMap { index in
                    [
                        ControlMessage.floorRequest(FloorCommand(id: 2 * index, channel: "deck")),
                        .floorRelease(FloorCommand(id: 2 * index + 1, channel: "deck")),
                    ]
                }
                let slowReaders = #"ptt_control_connections_closed_total{reason="slow-reader"}"#
                let deadline = ContinuousClock.now + .seconds(60)
                var rounds = 0
                while rounds < 4000, ContinuousClock.now < deadline {
                    if rounds % 20 == 0, try await server.metric(slowReaders) >= 4 { break }
                    try await talker.write(batch)
                    rounds += 1
                }
                #expect(try await server.metric(slowReaders) == 4, "after \(rounds) rounds of 50 floor cycles")
                #expect(try await server.metric("ptt_control_connections") == 1)
                // The talker reads and is still connected: its sessions answers still arrive.
                #expect(talker.channel.isActive)
                try await eventually("the sleepers' sessions to be freed") {
                    try await server.metric("ptt_control_sessions_in_memory") == 1
                }
                // Memberships survive: a sleeper that wakes up and reconnects is still in the channel.
                let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
                #expect(detail.members.count == 5)
                for sleeper in sleepers { await sleeper.close() }
                await talker.close()
            }
        }

        @Test("a client that sends heartbeats without reading the acknowledgements is disconnected")
        func heartbeatFlood() async throws {
            try await withTestServer(configure: {
                $0.limits.outboundQueueBytes = ConnectionLimits.minimumOutboundQueueBytes
            }) { server in
                let secret = try await server.addUser("alice")
                let flooder = try await SilentConnection.connect(to: server.endpoint)
                try await flooder.write([.hello(Hello(user: "alice", secret: secret, device: "flooder"))])
                let beats = (0..<2000).map { ControlMessage.heartbeat(Heartbeat(seq: UInt64($0))) }
                let slowReaders = #"ptt_control_connections_closed_total{reason="slow-reader"}"#
                var rounds = 0
                while try await server.metric(slowReaders) < 1, rounds < 500 {
                    try? await flooder.write(beats)
                    rounds += 1
                }
                #expect(try await server.metric(slowReaders) == 1, "after \(rounds) rounds of 2000 heartbeats")
                #expect(try await server.metric("ptt_control_connections") == 0)
            }
        }
    }
}
