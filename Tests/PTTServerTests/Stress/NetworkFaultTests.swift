import AudioFiles
import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

extension Stress {
    /// Network faults rehearsed for real: `pttd` in a network namespace of its own, `ptt` clients on other
    /// namespaces linked to it by veth pairs, and links that lose, delay, reorder and duplicate packets, go
    /// down, change address or blackhole the control connection. Skipped, with the reason printed, where
    /// namespaces cannot be made (not root, no iproute2, no TUN).
    @Suite("Network faults between namespaces", .serialized, .enabled(if: TestNetwork.isAvailable))
    struct NetworkFaultTests {
        static let fixture = "burst-20ms-mono.opus"

        /// Milliseconds since `start`.
        static func milliseconds(since start: ContinuousClock.Instant) -> Int {
            let elapsed = ContinuousClock.now - start
            return Int(elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        }

        @Test(
            "5 % loss, 30 ± 10 ms delay, 25 % reordering and 1 % duplicates on the listeners' links: recordings stay continuous"
        )
        func lossyListeners() async throws {
            let (_, packets) = try Fixtures.opus(Self.fixture)
            let network = try TestNetwork()
            defer { network.destroy() }
            let talker = try network.addHost("talk")
            let lab = try await FaultLab.start(network, config: "{}", users: ["alice", "bob", "carol"])
            // Two listeners, each behind a lossy link of its own: one records WAV (decoded, FEC and concealment),
            // the other Ogg Opus (the packets as relayed, gaps filled with packets the decoder conceals).
            let profile = LinkImpairment.Profile(loss: 0.05, delayMs: 30, jitterMs: 10, reorder: 0.25, duplicate: 0.01)
            var listeners: [(format: String, out: String, process: Subprocess, impairment: LinkImpairment)] = []
            defer { listeners.forEach { $0.impairment.stop() } }
            for (user, format, seed) in [("bob", "wav", UInt64(2)), ("carol", "ogg", 3)] {
                let host = try network.addHost(format)
                let impairment = try LinkImpairment.attach(to: host, profile, seed: seed)
                let out = TestServer.temporaryDirectory() + "/heard." + format
                let process = try lab.ptt(
                    on: host, as: user,
                    [
                        "listen", "--channel", "deck", "--out", out, "--format", format,
                        "--until-quiet", "1.5", "--seconds", TestTimeouts.lifetime(60),
                    ])
                listeners.append((format, out, process, impairment))
                try await process.waitForStandardError(containing: "listening on deck")
                _ = try await lab.waitFor("the relay to reach \(user)") {
                    try await lab.channel("deck").members.first { $0.user == user && $0.audioReachable }
                }
            }
            let talk = try lab.ptt(
                on: talker, as: "alice", ["talk", "--channel", "deck", "--file", Fixtures.path(Self.fixture)])
            #expect(try await talk.waitForExit(timeout: .seconds(30)) == 0, "ptt talk: \(talk.standardError)")
            #expect(talk.standardError.contains("sent \(packets.count) packets"))

            for listener in listeners {
                // Each listener stops by itself 1.5 s after its last packet.
                #expect(try await listener.process.waitForExit() == 0, "ptt listen: \(listener.process.standardError)")
                let counts = listener.impairment.counts
                let summary = try ListenSummary(listener.process.standardError)
                let delivered = (0..<packets.count).filter { !counts.droppedUDP.contains($0) }
                // what the listener can know of: its first to last packet
                let span = delivered.last! - delivered.first! + 1
                let droppedInSpan = counts.droppedUDP.filter { $0 > delivered.first! && $0 < delivered.last! }.count
                let samples: Int
                if listener.format == "wav" {
                    samples = try WAVReader.read(try Data(contentsOf: URL(fileURLWithPath: listener.out))).samples.count
                } else {
                    samples = try OggOpusReader.readFile(path: listener.out).packets.reduce(0) {
                        $0 + ($1.sampleCount ?? 0)
                    }
                }
                print(
                    """
                    NetworkFault lossy link (\(listener.format)): relay sent \(counts.udp) packets; link dropped \(counts.droppedUDP.count) \
                    \(counts.droppedUDP), sent \(counts.earlyUDP) early, duplicated \(counts.duplicatedUDP); TCP packets \(counts.other), \
                    \(counts.otherDropped) dropped. Listener: \(summary.written) written, \(summary.concealed) concealed, \
                    \(summary.reordered) reordered, \(summary.duplicates) duplicates dropped, \(summary.late) late; \
                    \(samples) samples = \(Double(samples) / 48) ms for \(span) packets of 20 ms
                    """)
                #expect(counts.udp == packets.count, "the relay sent each packet to the listener once")
                #expect(
                    !counts.droppedUDP.isEmpty && counts.earlyUDP > 0 && counts.duplicatedUDP > 0,
                    "the seed exercises every fault")
                // Every packet has its place: written in order, or concealed (lost on the link, or too late for the buffer).
                #expect(summary.written + summary.concealed == span)
                #expect(summary.concealed == droppedInSpan + summary.late)
                #expect(summary.late <= 3, "packets held up longer than the 60 ms jitter buffer: \(summary.late)")
                #expect(summary.reordered > 0)
                #expect(
                    summary.duplicates == counts.duplicatedUDP,
                    "every copy is dropped (by SRTP replay protection or the jitter buffer)")
                // No holes: 960 samples for each of the packets from the first to the last received.
                #expect(samples == span * 960, "\(listener.format): \(samples) samples for \(span) packets")
                if listener.format == "ogg", let opusinfo = Tools.path("opusinfo") {
                    let info = try Subprocess(opusinfo, [listener.out])
                    #expect(try await info.waitForExit() == 0, "opusinfo: \(info.standardError)")
                }
            }
        }

        @Test("a talker whose link dies mid-burst loses the floor to T1, and the other members hear floor-idle")
        func talkerLinkDies() async throws {
            let network = try TestNetwork()
            defer { network.destroy() }
            let talker = try network.addHost("talk")
            let watcher = try network.addHost("watch")
            let lab = try await FaultLab.start(
                network, config: #"{"floor": {"endOfMediaTimeoutMs": 1000}}"#, users: ["alice", "bob"])
            let monitor = try lab.ptt(
                on: watcher, as: "bob", ["monitor", "--channel", "deck", "--seconds", TestTimeouts.lifetime(60)])
            _ = try await monitor.waitForLine { $0.contains(#""type":"joined""#) }
            _ = try lab.ptt(
                on: talker, as: "alice", ["talk", "--channel", "deck", "--file", Fixtures.path(Self.fixture)])
            _ = try await monitor.waitForLine { $0.contains(#""type":"floor-taken""#) }
            let before = try await lab.waitFor(metric: "ptt_media_packets_received_total", atLeast: 50)

            let cut = ContinuousClock.now
            try TestNetwork.ip(["-n", talker.namespace, "link", "set", talker.device, "down"])
            _ = try await monitor.waitForLine(timeout: .seconds(10)) { $0.contains(#""type":"floor-idle""#) }
            let freedAfter = Self.milliseconds(since: cut)
            let revokes = try await lab.metric(#"ptt_floor_revokes_total{cause="end-of-media"}"#)
            let received = try await lab.metric("ptt_media_packets_received_total")
            let floor = try await lab.channel("deck").floor
            print(
                "NetworkFault dead talker: link down after ≥ \(Int(before)) packets at the relay (\(Int(received)) in all); floor-idle \(freedAfter) ms later with T1 = 1000 ms; end-of-media revokes \(Int(revokes))"
            )
            #expect(revokes == 1)
            #expect(floor == .idle)
            // T1 runs from the last audio the relay reported (at most every 250 ms): 750 to 1000 ms after the cut, plus delivery.
            #expect(freedAfter >= 700 && freedAfter <= 2_500, "floor freed \(freedAfter) ms after the link died")
            #expect(received < 309, "the relay heard nothing after the link died")
        }

        @Test(
            "a talker whose address changes mid-burst keeps talking: the relay follows the first authenticated packet")
        func talkerRoams() async throws {
            let (_, packets) = try Fixtures.opus(Self.fixture)
            let network = try TestNetwork()
            defer { network.destroy() }
            let talker = try network.addHost("talk")
            let listener = try network.addHost("listen")
            let lab = try await FaultLab.start(network, config: "{}", users: ["alice", "bob"])
            let out = TestServer.temporaryDirectory() + "/heard.wav"
            let listen = try lab.ptt(
                on: listener, as: "bob",
                [
                    "listen", "--channel", "deck", "--out", out, "--format", "wav", "--until-quiet", "1.5", "--seconds",
                    TestTimeouts.lifetime(60),
                ])
            try await listen.waitForStandardError(containing: "listening on deck")
            _ = try await lab.waitFor("the relay to reach the listener") {
                try await lab.channel("deck").members.first { $0.user == "bob" && $0.audioReachable }
            }
            let talk = try lab.ptt(
                on: talker, as: "alice", ["talk", "--channel", "deck", "--file", Fixtures.path(Self.fixture)])
            let before = try await lab.waitFor(metric: "ptt_media_packets_forwarded_total", atLeast: 100)

            // Roaming: the new address first, then the old one goes (and with it the control connection's).
            let moved = ContinuousClock.now
            let newAddress = talker.subnet + ".3"
            try TestNetwork.ip(["-n", talker.namespace, "addr", "add", newAddress + "/24", "dev", talker.device])
            try TestNetwork.ip(["-n", talker.namespace, "addr", "del", talker.address + "/24", "dev", talker.device])
            _ = try await lab.waitFor(metric: "ptt_media_address_changes_total", atLeast: 1)
            let followedAfter = Self.milliseconds(since: moved)

            #expect(try await talk.waitForExit(timeout: .seconds(30)) == 0, "ptt talk: \(talk.standardError)")
            #expect(try await listen.waitForExit() == 0, "ptt listen: \(listen.standardError)")
            let summary = try ListenSummary(listen.standardError)
            let forwarded = try await lab.metric("ptt_media_packets_forwarded_total")
            let changes = try await lab.metric("ptt_media_address_changes_total")
            let (_, samples) = try WAVReader.read(try Data(contentsOf: URL(fileURLWithPath: out)))
            print(
                """
                NetworkFault roaming: moved after \(Int(before)) packets forwarded; media followed \(followedAfter) ms later; \
                address changes \(Int(changes)); relay forwarded \(Int(forwarded)) of \(packets.count); listener wrote \(summary.written), \
                concealed \(summary.concealed); WAV \(samples.count / 48) ms; talker: \(talk.standardError.split(separator: "\n").last ?? "")
                """)
            #expect(changes == 1)
            #expect(talk.standardError.contains("reopened"), "the talker opened a new media socket")
            // The packets lost while the talker roamed never reached the relay, so they have no sequence number on the
            // listener's stream: no gap to conceal, but a hole in the burst's timestamps that the recording fills.
            #expect(summary.written == Int(forwarded), "the listener got every packet the relay forwarded")
            #expect(summary.concealed == 0)
            #expect(packets.count - Int(forwarded) <= 15, "roaming lost \(packets.count - Int(forwarded)) packets")
            #expect(samples.count == packets.count * 960, "the recording keeps real time across the move")
            #expect(followedAfter < 2_000)
        }

        @Test(
            "a blackholed control link: heartbeats close the session, the membership stays, and the device re-attaches")
        func controlBlackhole() async throws {
            let network = try TestNetwork()
            defer { network.destroy() }
            let device = try network.addHost("phone")
            let lab = try await FaultLab.start(
                network, config: #"{"heartbeatIntervalMs": 200, "heartbeatMissLimit": 3}"#, users: ["carol"])
            let first = try lab.ptt(
                on: device, as: "carol",
                [
                    "monitor", "--channel", "deck", "--device", "phone-1", "--stay", "--seconds",
                    TestTimeouts.lifetime(60),
                ])
            let joinedLine = try await first.waitForLine { $0.contains(#""type":"joined""#) }
            guard case .joined(let joined) = try ControlMessageCoding.decode(Data(joinedLine.utf8)) else {
                throw TestFailure("not joined: \(joinedLine)")
            }
            _ = try await lab.waitFor("the device to be connected") {
                try await lab.channel("deck").members.first { $0.connected }
            }

            let cut = ContinuousClock.now
            try LinkBlackhole.start(on: device, ipProtocol: 6)
            _ = try await lab.waitFor(metric: "ptt_sessions_timed_out_total", atLeast: 1, timeout: .seconds(10))
            let detectedAfter = Self.milliseconds(since: cut)
            let detail = try await lab.waitFor("the session to end", timeout: .seconds(15)) {
                let detail = try await lab.channel("deck")
                return detail.members.contains { !$0.connected } ? detail : nil
            }
            let closedAfter = Self.milliseconds(since: cut)
            let timeouts = try await lab.metric("ptt_sessions_timed_out_total")
            #expect(timeouts == 1)
            #expect(detail.members.map(\.id) == [joined.member.id], "the membership is kept")
            // 3 unacknowledged heartbeats at 200 ms: timed out at the 4th tick, 600 to 800 ms after the cut.
            #expect(
                detectedAfter >= 400 && detectedAfter <= 3_000, "heartbeat timeout \(detectedAfter) ms after the cut")
            // The session then ends when its TLS connection closes, which waits up to NIOSSL's 5 s shutdown timeout for
            // the dead peer's close_notify (see NETFAULT-REPORT.md).
            #expect(closedAfter <= detectedAfter + 7_000, "session ended \(closedAfter) ms after the cut")

            first.signal(SIGKILL)  // the app that held the dead connection is gone
            try LinkBlackhole.stop(on: device)
            let back = ContinuousClock.now
            let second = try lab.ptt(
                on: device, as: "carol",
                [
                    "monitor", "--channel", "deck", "--device", "phone-1", "--stay", "--welcome", "--seconds",
                    TestTimeouts.lifetime(60),
                ])
            let welcomeLine = try await second.waitForLine { $0.contains(#""type":"welcome""#) }
            _ = try await second.waitForLine { $0.contains(#""type":"joined""#) }
            let reattachedAfter = Self.milliseconds(since: back)
            guard case .welcome(let welcome) = try ControlMessageCoding.decode(Data(welcomeLine.utf8)) else {
                throw TestFailure("no welcome: \(welcomeLine)")
            }
            let after = try await lab.channel("deck")
            print(
                "NetworkFault control blackhole: heartbeat 200 ms × 3; heartbeat timeout \(detectedAfter) ms after the cut, session gone from the admin API after \(closedAfter) ms; timeouts \(Int(timeouts)); membership kept; re-attached \(reattachedAfter) ms after the link came back with \(welcome.memberships.count) membership(s) in welcome"
            )
            #expect(welcome.memberships.map(\.member.id) == [joined.member.id])
            #expect(welcome.memberships.map(\.channel.name) == ["deck"])
            #expect(after.members.map(\.id) == [joined.member.id] && after.members.allSatisfy(\.connected))
        }
    }
}
