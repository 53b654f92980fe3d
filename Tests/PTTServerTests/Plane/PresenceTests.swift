import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// `presence`: who of a channel is connected and reachable by audio, as members (the browser page) see it.
@Suite("Presence")
struct PresenceTests {
    @Test("members see who is connected and who the relay reaches; strangers are refused")
    func presence() async throws {
        try await withTestServer { server in
            let crew = try await RelayTests.crew(server, ["alice", "bob"])
            let daveSecret = try await server.addUser("dave")
            let dave = try await server.connect("dave", secret: daveSecret)
            _ = try await dave.request(.join(Join(channel: "deck")))  // no media: not reachable by audio

            guard
                case .presenceReport(let report) = try await crew[0].peer.request(
                    .presence(PresenceRequest(channel: "deck")))
            else { throw TestFailure("expected presence-report") }
            #expect(report.memberCount == 3 && report.channel.name == "deck")
            let byUser = Dictionary(uniqueKeysWithValues: report.members.map { ($0.user, $0) })
            #expect(byUser["alice"]?.audioReachable == true && byUser["bob"]?.audioReachable == true)
            #expect(byUser["dave"]?.audioReachable == false && byUser["dave"]?.connected == true)
            #expect(byUser["dave"]?.wakeRoute == .unreachable)

            await dave.client.close()
            try await eventually("dave shown as not connected") {
                guard
                    case .presenceReport(let again) = try await crew[1].peer.request(
                        .presence(PresenceRequest(channel: "deck")))
                else { return false }
                return again.members.first { $0.user == "dave" }?.connected == false
            }

            let eveSecret = try await server.addUser("eve")
            let eve = try await server.connect("eve", secret: eveSecret)
            await #expect(throws: ControlClientError.self) {
                _ = try await eve.request(.presence(PresenceRequest(channel: "deck")))
            }
        }
    }
}
