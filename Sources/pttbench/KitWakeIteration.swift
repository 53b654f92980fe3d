#if os(Linux)
import Foundation
import NIOConcurrencyHelpers
import PTTKit
import PTTProtocol

/// What one `kit-wake` iteration measured, in nanoseconds.
struct KitWakeSample {
    /// The talker's floor grant answered → the wake taken from `PushProviderSession.wakes` (pttd sends the wake as it
    /// grants the floor, so this is mostly how late the talker hears of its grant).
    var grantToWake: UInt64
    /// Wake → TCP connected, with the client's own set-up (everything of `PTTClient.connect` but TLS and hello).
    var tcp: UInt64
    /// TCP connected → TLS handshake done (zero without TLS).
    var tls: UInt64
    /// Handshake done → `welcome`.
    var hello: UInt64
    /// Connected → `attach` returned (memberships read, media session open, first keep-alive sent).
    var attach: UInt64
    /// Attach returned → first `.audio` handed to the app by `handle.audio`.
    var firstAudio: UInt64
    /// Wake → first `.audio`.
    var total: UInt64
    /// Whether that first packet was the first the talker sent in this burst (catch-up from the start).
    var fromBurstStart: Bool
    /// The index in the burst of that first packet (-1: not one of this burst's).
    var firstIndex: Int
}

/// The members of a `kit-wake` run: ann talks (a connected app), bob is asleep (a membership, no app connection,
/// not reachable by audio) with his Local Push session connected.
struct KitWakeMembers {
    let annClient: PTTClient
    let annDeck: ChannelHandle
    let provider: PushProviderSession
    let bob: PTTCredentials
    let server: KitBenchServer
    /// True: the woken app joins the channel again (a fresh SRTP key) instead of attaching the membership.
    let rejoin: Bool

    /// 44 bytes shaped like a 20 ms CELT Opus frame (TOC 0xF8), tagged with the iteration and the packet's index.
    static func packet(iteration: Int, index: Int) -> [UInt8] {
        [0xF8, UInt8(truncatingIfNeeded: iteration), UInt8(truncatingIfNeeded: index), UInt8(index >> 8)]
            + [UInt8](repeating: 0x55, count: 40)
    }

    /// One iteration: ann takes the floor and talks; bob's wake arrives; bob's "app" connects, attaches and waits
    /// for the first packet; then ann releases, bob's app closes, and this waits until the relay no longer counts
    /// bob as reachable (pttd's mediaSilenceTimeout, 1 s here), so that the next burst wakes him again.
    func run(iteration: Int, wakeTimeout: Duration) async throws -> KitWakeSample {
        let granted = try await annDeck.requestFloor()
        guard case .granted = granted else {
            throw BenchError("iteration \(iteration): ann's floor request was answered \(granted)")
        }
        let grantedAt = KitBenchServer.now()
        let stop = NIOLockedValueBox(false)
        // The talker's app: a few packets at once, then one every 20 ms (up to 2 s); the kit stamps and paces them.
        let feeder = Task { [annDeck] in
            for index in 0..<100 {
                if stop.withLockedValue({ $0 }) { break }
                try? annDeck.send(opus: Self.packet(iteration: iteration, index: index))
                if index >= 4 { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
        defer { feeder.cancel() }

        let provider = provider
        let woken = try await KitBenchServer.within(wakeTimeout) { () -> (PushToTalkWake, UInt64)? in
            var wakes = provider.wakes.makeAsyncIterator()
            guard let wake = await wakes.next() else { return nil }
            return (wake, KitBenchServer.now())
        }
        guard let (wake, wokenAt) = woken else {
            throw BenchError("iteration \(iteration): no wake within \(wakeTimeout)")
        }
        guard wake.action == .activeRemoteParticipant(name: "ann") else {
            throw BenchError("iteration \(iteration): the wake says \(wake.action)")
        }

        // Bob's app, launched by the wake: connect (certificate pinned already), attach, play.
        let app = try await PTTClient.connect(to: server.endpoint, credentials: bob, security: server.security)
        let connectedAt = KitBenchServer.now()
        let timings = await app.connectTimings ?? ConnectTimings(tcp: .zero, tls: .zero, hello: .zero)
        guard let membership = await app.memberships.first(where: { $0.channel.id == wake.channel }) else {
            await app.close()
            throw BenchError("iteration \(iteration): welcome lists no membership of the woken channel")
        }
        let handle = try await rejoin ? app.join(membership.channel.id) : app.attach(membership)
        let attachedAt = KitBenchServer.now()
        let first = try await KitBenchServer.within(.seconds(3)) { () -> (PlayoutPacket, UInt64)? in
            for await item in handle.audio {
                if case .audio(let packet) = item { return (packet, KitBenchServer.now()) }
            }
            return nil
        }
        stop.withLockedValue { $0 = true }
        await feeder.value
        try await annDeck.releaseFloor()
        await app.close()
        guard let (packet, heardAt) = first else {
            let status = try? await server.member("bob", of: "deck")
            let drops = ((try? await server.admin.getText("/metrics")) ?? "").split(separator: "\n")
                .filter { $0.contains("drop") && !$0.hasPrefix("#") }.joined(separator: "; ")
            throw BenchError(
                "iteration \(iteration): bob's app heard nothing within 3 s of attaching (wake for burst "
                    + "\(wake.burst ?? "?"); jitter buffer \(handle.listeningStatistics); pttd's view of bob: "
                    + "\(status.map { "\($0)" } ?? "?"); relay drops: \(drops))")
        }
        try await server.waitFor("bob unreachable again", user: "bob", in: "deck", timeout: .seconds(10)) {
            !$0.audioReachable
        }
        // The relay reports keep-alives to the control plane at most every 250 ms, so the plane (which decides the
        // wake) may call bob unreachable while the relay still sends to his old address for up to that long: a
        // burst started then loses its first packets for him (catch-up starts after them). Not what is measured.
        try await Task.sleep(for: .milliseconds(300))

        let tls = UInt64(max(timings.tls.nanosecondsValue, 0))
        let hello = UInt64(max(timings.hello.nanosecondsValue, 0))
        let connect = connectedAt &- wokenAt
        return KitWakeSample(
            grantToWake: wokenAt &- grantedAt, tcp: connect > tls + hello ? connect - tls - hello : 0, tls: tls,
            hello: hello, attach: attachedAt &- connectedAt, firstAudio: heardAt &- attachedAt,
            total: heardAt &- wokenAt,
            fromBurstStart: packet.opus == Self.packet(iteration: iteration, index: 0),
            firstIndex: packet.opus.count == 44 && packet.opus[1] == UInt8(truncatingIfNeeded: iteration)
                ? Int(packet.opus[2]) | Int(packet.opus[3]) << 8 : -1)
    }
}

extension Duration {
    /// Whole nanoseconds (clamped).
    var nanosecondsValue: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled &+ attoseconds / 1_000_000_000
    }
}
#endif
