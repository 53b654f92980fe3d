import AudioFiles
import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// pttd restarts (same data directory) between two bursts. The new relay numbers each listener's stream from its
/// first number again, below the last number the listener heard: a listener that kept its place in the old stream
/// would drop the whole second burst as duplicates. A `PTTClient` and `ptt listen` must play it.
@Suite("Listening across a pttd restart")
struct ListenAcrossRestartTests {
    typealias Kit = KitClientTests

    /// A server on `data`, on `port` when given. Heartbeats every 2 s: a client counts a connection dead after 1.5
    /// intervals of silence, and at 500 ms a loaded machine made the clients reconnect to a server that was up.
    static func start(_ data: String, port: Int? = nil) async throws -> TestServer {
        try await TestServer.start(data: data) {
            $0.heartbeatInterval = Duration.seconds(2).scaled
            if let port { $0.controlPort = port }
        }
    }

    /// `ann` talks `packets` through the kit: floor, paced packets, release.
    static func talk(_ deck: ChannelHandle, _ packets: [[UInt8]]) async throws {
        guard case .granted = try await deck.requestFloor() else { throw TestFailure("floor not granted") }
        for packet in packets { try deck.send(opus: packet) }
        try await deck.releaseFloor()
    }

    @Test("a PTTClient plays the burst after the restart, although its numbers are below the first burst's")
    func kitListener() async throws {
        let data = TestServer.temporaryDirectory()
        var options = PTTClient.Options()
        options.backoff = ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        let first = try await Self.start(data)
        let port = first.endpoint.port
        let annSecret = try await first.addUser("ann")
        let bobSecret = try await first.addUser("bob")
        let ann = try await Kit.member("ann", on: first, secret: annSecret, options: options)
        let bob = try await Kit.member("bob", on: first, secret: bobSecret, options: options)
        let annDeck = try await ann.client.join("deck")
        let bobDeck = try await bob.client.join("deck")
        let second: TestServer
        do {
            try await Kit.waitAudioReachable(first, channel: "deck", count: 2)
            let before = Kit.packets(40, tag: 1)
            async let heardBefore = Kit.hear(before.count, from: bobDeck)
            try await Self.talk(annDeck, before)
            #expect(try await heardBefore.map(\.opus) == before)
            await first.stop()
            _ = try await bob.next("connecting after the server went away") { $0 == .connectionState(.connecting) }
            second = try await Self.start(data, port: port)
        } catch {
            await first.stop()
            throw error
        }
        do {
            for member in [ann, bob] {
                _ = try await member.next("re-attached") { if case .reattached = $0 { true } else { false } }
            }
            try await Kit.waitAudioReachable(second, channel: "deck", count: 2)
            let after = Kit.packets(10, tag: 2)
            async let heardAfter = Kit.hear(after.count, from: bobDeck)
            try await Self.talk(annDeck, after)
            #expect(try await heardAfter.map(\.opus) == after)
            #expect(bobDeck.listeningStatistics.duplicates == 0)
        } catch {
            await second.stop()
            throw error
        }
        await ann.client.close()
        await bob.client.close()
        await second.stop()
    }

    @Test("ptt listen writes both bursts, before and after the restart")
    func pttListen() async throws {
        let data = TestServer.temporaryDirectory()
        let out = TestServer.temporaryDirectory() + "/heard.ogg"
        var options = PTTClient.Options()
        options.backoff = ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        let first = try await Self.start(data)
        let port = first.endpoint.port
        let annSecret = try await first.addUser("ann")
        let bobSecret = try await first.addUser("bob")
        let before = Kit.packets(40, tag: 1)
        let after = Kit.packets(10, tag: 2)
        let listener = try Subprocess(
            "ptt",
            [
                "listen", "--channel", "deck", "--out", out, "--packets", "\(before.count + after.count)",
                "--seconds", TestTimeouts.lifetime(60), "--no-tls", "--server", first.endpoint.description, "--user",
                "bob", "--secret",
                bobSecret,
            ])
        defer { listener.signal(SIGKILL) }
        let ann = try await Kit.member("ann", on: first, secret: annSecret, options: options)
        let annDeck = try await ann.client.join("deck")
        let second: TestServer
        do {
            try await Kit.waitAudioReachable(first, channel: "deck", count: 2)
            try await Self.talk(annDeck, before)
            await first.stop()
            second = try await Self.start(data, port: port)
        } catch {
            await first.stop()
            throw error
        }
        do {
            _ = try await ann.next("re-attached") { if case .reattached = $0 { true } else { false } }
            // ptt listen is back when the relay hears it again.
            try await Kit.waitAudioReachable(second, channel: "deck", count: 2)
            try await Self.talk(annDeck, after)
            #expect(try await listener.waitForExit(timeout: .seconds(30)) == 0, "ptt listen: \(listener.standardError)")
            let (_, heard) = try OggOpusReader.readFile(path: out)
            let payloads = heard.map { Array($0.data) }.filter { $0.count > 1 }  // filler packets are 1 byte
            #expect(payloads == before + after, "heard \(payloads.count) of \(before.count + after.count) packets")
        } catch {
            await second.stop()
            throw error
        }
        await ann.client.close()
        await second.stop()
    }
}
