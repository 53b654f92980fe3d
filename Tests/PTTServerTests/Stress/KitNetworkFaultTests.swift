import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

extension Stress {
    /// PTTKit on a "device" behind a real link to a real `pttd` (`FaultLab`, in a namespace of its own): the link
    /// blackholed, the device's address changed mid-burst, the server killed. Each kit client runs on an event loop
    /// group whose thread was started inside its host's namespace, so its control and media sockets live there.
    /// Skipped, with the reason printed, where namespaces cannot be made (not root, no iproute2, no TUN).
    @Suite("PTTKit under network faults between namespaces", .serialized, .enabled(if: TestNetwork.isAvailable))
    struct KitNetworkFaultTests {
        /// A kit client as an app runs it, on `host`.
        struct Device: Sendable {
            let host: TestNetwork.Host
            let group: MultiThreadedEventLoopGroup
            let client: PTTClient
            let events: Recorder<Stamped>

            /// An event, with when the test saw it.
            struct Stamped: Sendable {
                let at: ContinuousClock.Instant
                let event: PTTEvent
            }

            /// Connects as `user` from `host` to the lab's `pttd` (TLS, its certificate pinned on first use).
            static func connect(
                _ user: String, secret: String, on host: TestNetwork.Host, lab: FaultLab,
                options: PTTClient.Options = PTTClient.Options()
            ) async throws -> Device {
                // Threads inherit the namespace of the thread that starts them: the group's one thread, and every
                // socket the kit makes on it (TCP by NIO on the loop, UDP by MediaSession on the loop), are the
                // device's. The root namespace has no route to the lab's 10.x addresses, so a socket made anywhere
                // else could not connect at all.
                let group = try NamespaceThread.run(in: host.namespace) {
                    MultiThreadedEventLoopGroup(numberOfThreads: 1)
                }
                let client: PTTClient
                do {
                    client = try await PTTClient.connect(
                        to: ServerEndpoint(host: host.serverAddress, port: lab.info.controlPort),
                        credentials: PTTCredentials(user: user, secret: secret, device: "\(user)-phone"),
                        security: .tls(KnownHosts(path: TestServer.temporaryDirectory() + "/known_hosts")),
                        options: options, group: group)
                } catch {
                    try? await group.shutdownGracefully()
                    throw error
                }
                let events = Recorder<Stamped> { "\($0.event)" }
                let (stamped, sink) = AsyncStream<Stamped>.makeStream()
                Task {
                    for await event in client.events { sink.yield(Stamped(at: .now, event: event)) }
                    sink.finish()
                }
                Task { await events.consume(stamped) }
                return Device(host: host, group: group, client: client, events: events)
            }

            /// The next event that matches, with when it came (bounded: `TestTimeouts.eventWait`, scaled).
            func next(_ what: String, where predicate: @escaping @Sendable (PTTEvent) -> Bool) async throws -> Stamped {
                try await events.next(timeout: TestTimeouts.eventWait, what: what) { predicate($0.event) }
            }

            func close() async {
                await client.close()
                try? await group.shutdownGracefully()
            }
        }

        /// What a channel handle's `audio` handed over, gathered in the background.
        final class Heard: Sendable {
            private let items = NIOLockedValueBox<[PlayoutItem]>([])
            private let task: Task<Void, Never>

            init(_ handle: ChannelHandle) {
                let items = items
                task = Task {
                    for await item in handle.audio { items.withLockedValue { $0.append(item) } }
                }
            }

            deinit { task.cancel() }

            var all: [PlayoutItem] { items.withLockedValue { $0 } }
            var packets: [PlayoutPacket] { all.compactMap { if case .audio(let packet) = $0 { packet } else { nil } } }
            var lost: Int { all.reduce(0) { if case .lost(let count) = $1 { $0 + count } else { $0 } } }
            var late: Int { all.count { if case .late = $0 { true } else { false } } }

            /// Waits (bounded, scaled) until `condition` holds for what was heard.
            func wait(
                _ what: String, timeout: Duration = .seconds(20), until condition: @escaping ([PlayoutItem]) -> Bool
            ) async throws {
                try await eventually(what, timeout: timeout.scaled, interval: .milliseconds(5)) { condition(all) }
            }
        }

        /// The index `KitClientTests.packets` wrote into a packet.
        static func index(of packet: PlayoutPacket) -> Int { Int(packet.opus[2]) | Int(packet.opus[3]) << 8 }

        /// Adds `user` with `pttctl` in the server's namespace and returns the secret.
        static func addUser(_ user: String, to lab: FaultLab) async throws -> String {
            let added = try await lab.network.run(
                in: lab.network.server, "pttctl", ["user", "add", user, "--data", lab.data])
            return try require_(
                added.split(separator: "\n").first { $0.hasPrefix("secret: ") }.map {
                    String($0.dropFirst("secret: ".count))
                },
                "secret of \(user)")
        }

        /// Waits until the relay has heard every one of the `count` members of `channel`.
        static func waitAudioReachable(_ lab: FaultLab, channel: String, count: Int) async throws {
            _ = try await lab.waitFor("the relay to hear the \(count) members of \(channel)") {
                let detail = try await lab.channel(channel)
                return detail.members.count == count && detail.members.allSatisfy(\.audioReachable) ? detail : nil
            }
        }

        /// Sends `packets` through `handle` at their pace, handing each over at most half a second early.
        static func talk(_ packets: [[UInt8]], on handle: ChannelHandle) async throws {
            let start = ContinuousClock.now
            for (index, packet) in packets.enumerated() {
                try await Task.sleep(until: start + .milliseconds(20 * (index - 25)))
                try handle.send(opus: packet)
            }
        }

        /// The server's end of `host`'s link, as a host of its own (found by its address: the interface with
        /// `host.serverAddress` in the server's namespace).
        static func farEnd(of host: TestNetwork.Host, in network: TestNetwork) throws -> TestNetwork.Host {
            let shown = try TestNetwork.run(
                try require_(TestNetwork.ipPath, "ip"),
                ["-n", network.server, "-o", "-4", "addr", "show", "to", host.serverAddress])
            let fields = shown.split(whereSeparator: \.isWhitespace)
            guard fields.count > 1 else { throw TestFailure("no interface with \(host.serverAddress): \(shown)") }
            return TestNetwork.Host(
                namespace: network.server, device: String(fields[1]), address: host.serverAddress,
                serverAddress: host.address, subnet: host.subnet)
        }

        static func milliseconds(_ duration: Duration) -> Int {
            Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
        }

        /// Runs `body` with `devices` closed afterwards on every path (the namespaces go in the caller's `defer`).
        static func closing(_ devices: [Device], _ body: () async throws -> Void) async throws {
            do {
                try await body()
            } catch {
                for device in devices { await device.close() }
                throw error
            }
            for device in devices { await device.close() }
        }

        @Test(
            "a blackholed link: the kit is connecting within two heartbeat intervals, and ready within 1 s of the link's return"
        )
        func blackholedLink() async throws {
            let interval = 500
            let network = try TestNetwork()
            defer { network.destroy() }
            let phone = try network.addHost("phone")
            let lab = try await FaultLab.start(network, config: #"{"heartbeatIntervalMs": \#(interval)}"#, users: [])
            let device = try await Device.connect(
                "dana", secret: try await Self.addUser("dana", to: lab), on: phone, lab: lab)
            try await Self.closing([device]) {
                _ = try await device.next("ready") { $0 == .connectionState(.ready) }
                _ = try await device.client.join("deck")
                try await Self.waitAudioReachable(lab, channel: "deck", count: 1)

                // The cut: every TCP packet on the phone's link vanishes, both ways, at the link's far end (the
                // server's side of the veth pair), as behind an access point whose uplink died: nothing tells either
                // end. (Dropped on the phone's own interface instead, each SYN would fail to leave with a local error,
                // and TCP would retry it every 500 ms instead of 1 s or more apart, as it does when nothing answers.)
                let farEnd = try Self.farEnd(of: phone, in: network)
                let cut = ContinuousClock.now
                try LinkBlackhole.start(on: farEnd, ipProtocol: 6)
                let connecting = try await device.next("connecting after the cut") {
                    $0 == .connectionState(.connecting)
                }
                let detectedAfter = Self.milliseconds(connecting.at - cut)

                // Kept dead long enough for reconnection attempts to be under way (their SYNs lost) when it returns;
                // how long varies from run to run so that the return meets an attempt at a different point each time.
                let hold = Int.random(in: 1_500...3_500)
                try await Task.sleep(until: cut + .milliseconds(hold))
                let back = ContinuousClock.now
                try LinkBlackhole.stop(on: farEnd)
                let reattached = try await device.next("re-attached") {
                    if case .reattached(let channel) = $0 { channel.name == "deck" } else { false }
                }
                let ready = try await device.next("ready again") { $0 == .connectionState(.ready) }
                let recoveredAfter = Self.milliseconds(ready.at - back)
                let reconnects = await device.client.reconnects
                let timings = await device.client.connectTimings
                let state = await device.client.state

                // Detection: nothing heard for 1.5 intervals, checked every tenth of one; the last frame came at most
                // one interval before the cut, so `.connecting` is due 0.5 to 1.6 intervals after it. The bound is the
                // target, two intervals, plus 100 ms for the watch's sleep and two task hops (the link's state event,
                // this test's consumer) on a 2-core machine where other work runs.
                let margin = Int(100 * TestTimeouts.scale)
                let detectBound = 2 * interval + margin
                // Return: the next attempt's SYN must go out, and TCP, TLS, hello and the re-attach complete, within
                // 1 s. TCP itself resends a lost SYN only after 1 s (here: `tcp_syn_linear_timeouts`; 1, 2, 4 s
                // elsewhere), so the kit's reconnection attempts give up after 500 ms and start again with a fresh one.
                let recoverBound = 1_000 + margin
                print(
                    """
                    KitNetworkFault blackhole: heartbeat \(interval) ms; connecting \(detectedAfter) ms after the cut \
                    (bound \(detectBound)); link back after \(hold) ms; re-attached \
                    \(Self.milliseconds(reattached.at - back)) ms and ready \(recoveredAfter) ms after the return \
                    (bound \(recoverBound)); reconnects \(reconnects); last connect: TCP \(timings?.tcp ?? .zero), \
                    TLS \(timings?.tls ?? .zero), hello \(timings?.hello ?? .zero)
                    """)
                #expect(detectedAfter >= interval / 2 - 50, "connecting \(detectedAfter) ms after the cut: too soon")
                #expect(detectedAfter <= detectBound, "connecting \(detectedAfter) ms after the cut")
                #expect(recoveredAfter <= recoverBound, "ready \(recoveredAfter) ms after the link came back")
                #expect(reconnects == 1)
                #expect(state == .ready)
                let detail = try await lab.channel("deck")
                #expect(detail.members.map(\.connected) == [true])
            }
        }

        @Test(
            "the listener's address changes mid-burst: the kit loses at most a jitter buffer's worth beyond what the network could not deliver"
        )
        func listenerRoams() async throws {
            let network = try TestNetwork()
            defer { network.destroy() }
            let talkHost = try network.addHost("talk")
            let listenHost = try network.addHost("listen")
            let lab = try await FaultLab.start(network, config: "{}", users: [])
            let talker = try await Device.connect(
                "tess", secret: try await Self.addUser("tess", to: lab), on: talkHost, lab: lab)
            let listener: Device
            do {
                listener = try await Device.connect(
                    "liam", secret: try await Self.addUser("liam", to: lab), on: listenHost, lab: lab)
            } catch {
                await talker.close()
                throw error
            }
            try await Self.closing([talker, listener]) {
                let talk = try await talker.client.join("deck")
                let listen = try await listener.client.join("deck")
                try await Self.waitAudioReachable(lab, channel: "deck", count: 2)
                let heard = Heard(listen)
                guard case .granted = try await talk.requestFloor() else { throw TestFailure("tess not granted") }

                let sent = KitClientTests.packets(150, tag: 9)
                let talking = Task { try await Self.talk(sent, on: talk) }
                defer { talking.cancel() }
                // Mid-burst, 1.5 s in: well after the keep-alives the kit sends in its first second (any packet
                // sent from the old address fails and makes the kit reopen its socket by itself).
                try await heard.wait("half of the burst") {
                    $0.count { if case .audio = $0 { true } else { false } } >= 75
                }
                let heardBefore = heard.packets.count

                // Roaming: the new address first, then the old one goes; the app's NWPathMonitor tells the kit.
                let newAddress = listenHost.subnet + ".3"
                try TestNetwork.ip([
                    "-n", listenHost.namespace, "addr", "add", newAddress + "/24", "dev", listenHost.device,
                ])
                let gone = ContinuousClock.now
                try TestNetwork.ip([
                    "-n", listenHost.namespace, "addr", "del", listenHost.address + "/24", "dev", listenHost.device,
                ])
                await listener.client.networkPathChanged()
                let told = ContinuousClock.now
                try await talking.value
                try await talk.releaseFloor()
                // The last packet, or, if it was lost, a second after the burst's end.
                try? await heard.wait("the last packet", timeout: .seconds(1)) {
                    $0.contains { if case .audio(let packet) = $0 { Self.index(of: packet) == 149 } else { false } }
                }

                // The control connection, bound to the old address too, is checked by the path change: no answer to
                // the kit's heartbeat within 1 s (seen within one check, a tenth of the 10 s interval), then a
                // reconnection from the new address.
                _ = try await listener.next("connecting after the move") { $0 == .connectionState(.connecting) }
                let back = try await listener.next("ready after the move") { $0 == .connectionState(.ready) }
                let controlBackAfter = Self.milliseconds(back.at - told)

                let packets = heard.packets
                let (lost, late) = (heard.lost, heard.late)
                let forwarded = try await lab.metric("ptt_media_packets_forwarded_total")
                let changes = try await lab.metric("ptt_media_address_changes_total")
                // While the relay sends to the old address nobody can receive it: from the address going to the
                // kit being told (what the OS and the app take, here the `ip` command), then the kit's new socket's
                // first keep-alive reaching the relay. The kit answers for the last part only: it must take less than
                // the jitter buffer's 60 ms (3 packets). The packets of the first part: one each 20 ms, plus one
                // for the boundary.
                let unreachableMs = Self.milliseconds(told - gone)
                let networkShare = unreachableMs / 20 + 1
                let bound = networkShare + 3
                print(
                    """
                    KitNetworkFault listener roams: moved after \(heardBefore) packets heard; kit told \(unreachableMs) ms \
                    after the old address went; heard \(packets.count) of \(sent.count), lost \(lost) (bound \(bound): \
                    \(networkShare) undeliverable + 3), late \(late); relay forwarded \(Int(forwarded)), address \
                    changes \(Int(changes)); control connection back \(controlBackAfter) ms after the kit was told
                    """)
                #expect(Int(forwarded) == sent.count, "the relay forwarded the whole burst to the listener")
                #expect(packets.map(Self.index) == packets.map(Self.index).sorted(), "in order")
                #expect(packets.first.map(Self.index) == 0 && packets.last.map(Self.index) == sent.count - 1)
                #expect(packets.count + lost == sent.count, "every packet heard or reported lost")
                #expect(lost <= bound, "lost \(lost) packets")
                #expect(late == 0)
                #expect(changes >= 1, "the relay moved the listener's address")
                #expect(
                    controlBackAfter <= Int(3_000 * TestTimeouts.scale), "control back \(controlBackAfter) ms after")
            }
        }

        @Test(
            "pttd killed and started again: both members re-attach both channels, and a burst after the restart is heard whole"
        )
        func serverKilled() async throws {
            let network = try TestNetwork()
            defer { network.destroy() }
            let annHost = try network.addHost("ann")
            let bobHost = try network.addHost("bob")
            let lab = try await FaultLab.start(network, config: #"{"heartbeatIntervalMs": 1000}"#, users: [])
            let ann = try await Device.connect(
                "ann", secret: try await Self.addUser("ann", to: lab), on: annHost, lab: lab)
            let bob: Device
            do {
                bob = try await Device.connect(
                    "bob", secret: try await Self.addUser("bob", to: lab), on: bobHost, lab: lab)
            } catch {
                await ann.close()
                throw error
            }
            try await Self.closing([ann, bob]) {
                let annAlpha = try await ann.client.join("alpha")
                let annBravo = try await ann.client.join("bravo")
                let bobAlpha = try await bob.client.join("alpha")
                let bobBravo = try await bob.client.join("bravo")
                for channel in ["alpha", "bravo"] { try await Self.waitAudioReachable(lab, channel: channel, count: 2) }
                let ssrcs = [annAlpha.ssrc, annBravo.ssrc, bobAlpha.ssrc, bobBravo.ssrc]

                // SIGKILL: no goodbye to anyone; the kernel closes its sockets.
                let killed = ContinuousClock.now
                lab.daemon.signal(SIGKILL)
                #expect(try await lab.daemon.waitForExit(timeout: .seconds(10)) == SIGKILL)
                for device in [ann, bob] {
                    _ = try await device.next("connecting after the kill") { $0 == .connectionState(.connecting) }
                }
                // The same data directory and ports.
                guard let adminPort = URL(string: lab.info.adminURL)?.port, let mediaPort = lab.info.mediaPort,
                    let webPort = lab.info.webURL.flatMap({ URL(string: $0)?.port })
                else { throw TestFailure("ports missing from runtime.json: \(lab.info)") }
                let started = ContinuousClock.now
                let second = try network.spawn(
                    in: network.server, "pttd",
                    [
                        "--data", lab.data, "--control-port", "\(lab.info.controlPort)", "--admin-port", "\(adminPort)",
                        "--media-port", "\(mediaPort)", "--web-port", "\(webPort)",
                    ])
                _ = try await lab.waitFor("the second pttd to write runtime.json", timeout: .seconds(30)) {
                    guard second.process.isRunning else { throw TestFailure("pttd exited: \(second.standardError)") }
                    let bytes = FileManager.default.contents(atPath: lab.data + "/runtime.json")
                    let info = bytes.flatMap { try? JSONDecoder().decode(RuntimeInfo.self, from: $0) }
                    return info?.pid == second.process.processIdentifier ? info : nil
                }
                let listening = ContinuousClock.now

                // Nothing from the test to the kit from here on: it reconnects, re-attaches and moves the relay.
                var readyAfter: [Int] = []
                for device in [ann, bob] {
                    var channels: Set<String> = []
                    for _ in 0..<2 {
                        let event = try await device.next("re-attached") {
                            if case .reattached = $0 { true } else { false }
                        }
                        if case .reattached(let channel) = event.event { channels.insert(channel.name) }
                    }
                    #expect(channels == ["alpha", "bravo"])
                    let ready = try await device.next("ready again") { $0 == .connectionState(.ready) }
                    readyAfter.append(Self.milliseconds(ready.at - started))
                    #expect(await device.client.state == .ready)
                    #expect(await device.client.reconnects == 1)
                }
                #expect([annAlpha.ssrc, annBravo.ssrc, bobAlpha.ssrc, bobBravo.ssrc] == ssrcs)
                for channel in ["alpha", "bravo"] { try await Self.waitAudioReachable(lab, channel: channel, count: 2) }
                let reachableAfter = Self.milliseconds(ContinuousClock.now - started)

                // A burst in each channel at once: ann on alpha to bob, bob on bravo to ann.
                let bobHears = Heard(bobAlpha)
                let annHears = Heard(annBravo)
                guard case .granted = try await annAlpha.requestFloor() else { throw TestFailure("ann not granted") }
                guard case .granted = try await bobBravo.requestFloor() else { throw TestFailure("bob not granted") }
                let (alphaBurst, bravoBurst) = (KitClientTests.packets(50, tag: 1), KitClientTests.packets(50, tag: 2))
                async let alphaSent: Void = Self.talk(alphaBurst, on: annAlpha)
                async let bravoSent: Void = Self.talk(bravoBurst, on: bobBravo)
                _ = try await (alphaSent, bravoSent)
                for (heard, burst) in [(bobHears, alphaBurst), (annHears, bravoBurst)] {
                    try await heard.wait("the whole burst") {
                        $0.count { if case .audio = $0 { true } else { false } } >= burst.count
                    }
                }
                try await annAlpha.releaseFloor()
                try await bobBravo.releaseFloor()
                print(
                    """
                    KitNetworkFault server killed: pttd SIGKILLed, started again \
                    \(Self.milliseconds(started - killed)) ms later, its runtime.json seen after \
                    \(Self.milliseconds(listening - started)) ms; both clients ready \(readyAfter) ms and the relay \
                    hearing all four memberships \(reachableAfter) ms after the start; bursts heard: alpha \
                    \(bobHears.packets.count)/\(alphaBurst.count) (lost \(bobHears.lost)), bravo \
                    \(annHears.packets.count)/\(bravoBurst.count) (lost \(annHears.lost))
                    """)
                #expect(bobHears.packets.map(\.opus) == alphaBurst)
                #expect(annHears.packets.map(\.opus) == bravoBurst)
                #expect(bobHears.lost == 0 && annHears.lost == 0 && bobHears.late == 0 && annHears.late == 0)
            }
        }
    }
}
