import Foundation
import NIOCore
import ServerTestSupport
import TestSupport
import Testing

/// `limits.maxPendingHellos` is exact under a burst: however many connections wait in the kernel's backlog when
/// the listener reads, no more than the limit are between accept and `hello` at once.
@Suite("Hello gate under a burst")
struct HelloGateBurstTests {
    @Test("a parallel burst of idle connections never has more than maxPendingHellos open at once")
    func burstStaysWithinTheLimit() async throws {
        let limit = 4
        let burst = 150
        // Rounds of idle connections closed at the hello deadline: each round frees the whole gate while the
        // backlog is full, which is when an accept batch could overshoot.
        let rounds = 6
        try await withTestServer(configure: {
            $0.limits.maxPendingHellos = limit
            $0.limits.helloTimeout = .milliseconds(200)
        }) { server in
            let connections = try await withThrowingTaskGroup(of: SilentConnection.self) { group in
                for _ in 0..<burst { group.addTask { try await SilentConnection.connect(to: server.endpoint) } }
                return try await group.reduce(into: [SilentConnection]()) { $0.append($1) }
            }
            var most = 0.0
            let timedOut = #"ptt_control_connections_closed_total{reason="hello-timeout"}"#
            let what = "\(rounds) rounds of connections closed at the hello deadline"
            try await eventually(what, interval: .milliseconds(2)) {
                most = max(most, server.localMetric("ptt_control_connections"))
                return most > Double(limit) || server.localMetric(timedOut) >= Double(limit * rounds)
            }
            #expect(most <= Double(limit), "at most \(limit) connections may wait for hello; \(Int(most)) did")
            for connection in connections { await connection.close() }
        }
    }
}
