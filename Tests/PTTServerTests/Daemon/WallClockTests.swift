import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// The plane takes every time of day from its injected wall clock: a user's creation, a member's last
/// heartbeat, a channel made through the admin API.
@Suite("The plane's wall clock")
struct WallClockTests {
    @Test("times the admin API shows come from the injected clock, not the system's")
    func injected() async throws {
        let clock = ManualWallClock()
        let tenYears: TimeInterval = 10 * 365 * 86_400
        clock.advance(by: tenYears)
        try await withTestServer(wallClock: clock) { server in
            let secret = try await server.addUser("ann")
            let peer = try await server.connect("ann", secret: secret)
            _ = try await peer.join("deck")
            try await peer.barrier()

            let future = Date().addingTimeInterval(tenYears - 86_400)
            func parse(_ text: String?) throws -> Date {
                let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                return try #require(text.flatMap { try? style.parse($0) }, "a date: \(text ?? "nil")")
            }
            let users: [UserStatus] = try await server.admin.get("/api/users")
            #expect(try parse(users.first { $0.name == "ann" }?.createdAt) > future)
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(try parse(detail.members.first?.lastHeartbeat) > future)
            await peer.close()
        }
    }
}
