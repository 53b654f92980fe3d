import Foundation
import PTTKit
import PTTProtocol
import PTTServer
import ServerTestSupport
import TestSupport
import Testing

@Suite("Sessions: credentials, heartbeats, replacement")
struct SessionTests {
    @Test("a wrong secret, an unknown user and a wrong version are refused with clear codes and counted")
    func badCredentials() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            func refusal(_ hello: Hello) async -> ErrorCode? {
                do {
                    let client = try await ControlClient.connect(to: server.endpoint, hello: hello, security: .plain)
                    await client.close()
                    return nil
                } catch ControlClientError.refused(let error) {
                    return error.code
                } catch {
                    return nil
                }
            }
            #expect(await refusal(Hello(user: "alice", secret: "wrong", device: "d")) == .badCredentials)
            #expect(await refusal(Hello(user: "mallory", secret: secret, device: "d")) == .badCredentials)
            #expect(
                await refusal(Hello(version: 99, user: "alice", secret: secret, device: "d")) == .unsupportedVersion)
            #expect(await refusal(Hello(user: "alice", secret: secret, device: "")) == .badRequest)
            let ok = try await server.connect("alice", secret: secret)
            #expect(ok.welcome.version == ProtocolVersion.current)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_auth_failures_total{reason="bad-credentials"} 2"#))
            #expect(metrics.contains(#"ptt_auth_failures_total{reason="unsupported-version"} 1"#))
        }
    }

    @Test("a client that stops acknowledging heartbeats is closed after three, and its membership stays")
    func heartbeatLoss() async throws {
        // 400 ms: the silent client joins before its third miss even on a loaded machine. Under a sanitizer
        // a healthy client may answer late: the interval (and so the 3-miss limit) scales.
        let interval = Duration.milliseconds(400).scaled
        try await withTestServer(configure: { $0.heartbeatInterval = interval }) { server in
            let secret = try await server.addUser("alice")
            let bobSecret = try await server.addUser("bob")
            // The healthy client first: the silent one must join within three intervals of connecting, so
            // nothing slow (another TLS handshake) may come between its connect and its join.
            let healthy = try await server.connect("bob", secret: bobSecret)
            _ = try await healthy.join("deck")
            let silent = try await server.connect("alice", secret: secret, acknowledgeHeartbeats: false)
            _ = try await silent.join("deck")
            #expect(silent.welcome.heartbeatIntervalMs == Int(400 * TestTimeouts.scale))

            let error = try await silent.next(timeout: .seconds(10).scaled, "heartbeat-timeout error") {
                if case .error(let e) = $0 { e.code == .heartbeatTimeout } else { false }
            }
            #expect(error.type == "error")
            try await silent.waitClosed()
            // The healthy client kept acknowledging and is still served.
            _ = try await healthy.next("heartbeat")
            try await healthy.barrier()

            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            let alice = try #require(detail.members.first { $0.user == "alice" })
            #expect(alice.connected == false)
            #expect(detail.members.first { $0.user == "bob" }?.connected == true)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains("ptt_sessions_timed_out_total 1"))
            #expect(metrics.contains("ptt_heartbeats_missed_total"))
        }
    }

    @Test("a new connection for the same device and role replaces the stale one; another role coexists")
    func staleSessionReplaced() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let first = try await server.connect("alice", secret: secret, device: "phone")
            let joined = try await first.join("deck")
            let provider = try await server.connect("alice", secret: secret, device: "phone", role: .pushProvider)
            let second = try await server.connect("alice", secret: secret, device: "phone")

            let error = try await first.next("error")
            guard case .error(let e) = error else { throw TestFailure("expected error") }
            #expect(e.code == .replaced)
            try await first.waitClosed()

            // The replacement sees the membership the device already had.
            #expect(second.welcome.memberships.map(\.member.id) == [joined.member.id])
            try await second.barrier()
            try await provider.barrier()
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.members.count == 1)
            #expect(Set(detail.members[0].connections) == ["app", "push-provider"])
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains("ptt_sessions_replaced_total 1"))
        }
    }

    @Test("hello after hello closes the connection with already-authenticated")
    func secondHello() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let peer = try await server.connect("alice", secret: secret)
            peer.client.send(.hello(Hello(user: "alice", secret: secret, device: "x")))
            let error = try await peer.next("error")
            guard case .error(let e) = error else { throw TestFailure("expected error") }
            #expect(e.code == .alreadyAuthenticated)
            try await peer.waitClosed()
        }
    }
}
