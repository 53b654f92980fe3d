import AsyncHTTPClient
import Foundation
import PTTAdmin
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@Suite("Admin API")
struct AdminAPITests {
    @Test("every request needs the admin token")
    func unauthorized() async throws {
        try await withTestServer { server in
            let wrong = AdminClient(baseURL: server.admin.baseURL, token: "not-the-token")
            do {
                let _: [ChannelSummary] = try await wrong.get("/api/channels")
                Issue.record("listed channels without the token")
            } catch let error as AdminError {
                #expect(error.code == .unauthorized)
            }
            await #expect(throws: AdminError.self) { _ = try await wrong.getText("/metrics") }
            let token = try String(contentsOfFile: server.data.adminToken, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            let attributes = try FileManager.default.attributesOfItem(atPath: server.data.adminToken)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let right = AdminClient(baseURL: server.admin.baseURL, token: token)
            let channels: [ChannelSummary] = try await right.get("/api/channels")
            #expect(channels.isEmpty)
        }
    }

    @Test("channels and users can be created, listed and removed, with clear errors")
    func lifecycle() async throws {
        try await withTestServer { server in
            let created: ChannelSummary = try await server.admin.post(
                "/api/channels", body: CreateChannelRequest(name: "galley"))
            #expect(created.name == "galley")
            #expect(ChannelIDText.isUUID(created.id))
            do {
                let _: ChannelSummary = try await server.admin.post(
                    "/api/channels", body: CreateChannelRequest(name: "galley"))
                Issue.record("created a duplicate channel")
            } catch let error as AdminError {
                #expect(error.code == .conflict)
            }
            do {
                let _: ChannelSummary = try await server.admin.post(
                    "/api/channels", body: CreateChannelRequest(name: " "))
                Issue.record("created a blank channel")
            } catch let error as AdminError {
                #expect(error.code == .badRequest)
            }
            let byID: ChannelDetail = try await server.admin.get("/api/channels/\(created.id)")
            #expect(byID.name == "galley")

            let secret = try await server.addUser("cook", priority: 2)
            let users: [UserStatus] = try await server.admin.get("/api/users")
            #expect(users.map(\.name) == ["cook"])
            #expect(users.first?.priority == 2)
            let cook = try await server.connect("cook", secret: secret)
            _ = try await cook.join("galley")

            try await server.admin.perform(.DELETE, "/api/channels/galley")
            let left = try await cook.next("left")
            guard case .left(let l) = left else { throw TestFailure("expected left") }
            #expect(l.reason == .channelDeleted)
            let none: [ChannelSummary] = try await server.admin.get("/api/channels")
            #expect(none.isEmpty)
            do {
                let _: ChannelDetail = try await server.admin.get("/api/channels/galley")
                Issue.record("a deleted channel was found")
            } catch let error as AdminError {
                #expect(error.code == .notFound)
            }

            try await server.admin.perform(.DELETE, "/api/users/cook")
            let closing = try await cook.next("error")
            guard case .error(let e) = closing else { throw TestFailure("expected error") }
            #expect(e.code == .badCredentials)
            try await cook.waitClosed()
            await #expect(throws: ControlClientError.self) { _ = try await server.connect("cook", secret: secret) }
        }
    }

    @Test("/metrics is Prometheus text with the server's counters")
    func metrics() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let alice = try await server.connect("alice", secret: secret)
            _ = try await alice.join("deck")
            let text = try await server.admin.getText("/metrics")
            for name in [
                "ptt_control_connections", "ptt_members", "ptt_channels", "ptt_joins_total", "ptt_floor_grants_total",
                "ptt_heartbeats_missed_total", "ptt_control_frames_rejected_total",
            ] {
                #expect(text.contains("# TYPE \(name) "), "missing \(name)")
            }
            #expect(text.contains("ptt_joins_total 1"))
            #expect(text.contains("ptt_members 1"))
            #expect(text.contains("ptt_control_connections 1"))
            // Labelled counters are there at 0 before anything happened, pushes included.
            #expect(text.contains(#"ptt_pushes_total{kind="wake",transport="local-push",outcome="sent",reason=""} 0"#))
            #expect(text.contains(#"ptt_control_connections_refused_total{reason="per-address-limit"} 0"#))
            #expect(text.contains(#"ptt_control_connections_closed_total{reason="slow-reader"} 0"#))
        }
    }
}
