import Foundation
import NIOCore
import NIOPosix
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

extension Stress {
    /// Nothing stays behind a closed control connection.
    @Suite("No memory per closed connection")
    struct SessionLeakTests {
        /// Opens and closes `count` connections, `parallel` at a time; `body` runs on each before it closes.
        static func churn(
            _ server: TestServer, count: Int, parallel: Int = 32,
            _ body: @escaping @Sendable (Channel) async throws -> Void = { _ in }
        ) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<parallel {
                    group.addTask {
                        for _ in stride(from: lane, to: count, by: parallel) {
                            // Each lane connects from its own loopback address: the TIME_WAIT entries closed
                            // connections leave are spread over many address pairs, so local ports do not run out.
                            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                                .bind(to: try SocketAddress(ipAddress: "127.0.1.\(lane + 1)", port: 0))
                                .connect(host: server.endpoint.host, port: server.endpoint.port).get()
                            try await body(channel)
                            try? await channel.close()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        @Test("2000 bare connect-and-close cycles leave no session in memory")
        func bareConnections() async throws {
            try await withTestServer { server in
                try await Self.churn(server, count: 2000)
                try await eventually("every connection to be closed") {
                    try await server.metric("ptt_control_connections") == 0
                }
                try await eventually("every session to be freed") {
                    try await server.metric("ptt_control_sessions_in_memory") == 0
                }
                let accepted = try await server.metric("ptt_control_connections_accepted_total")
                #expect(accepted == 2000)
            }
        }

        @Test("1000 connections that authenticate, join and leave leave no session in memory")
        func authenticatedConnections() async throws {
            try await withTestServer { server in
                let secret = try await server.addUser("alice")
                try await Self.churn(server, count: 1000, parallel: 16) { channel in
                    var buffer = channel.allocator.buffer(capacity: 256)
                    try ControlFrame.write(
                        .hello(Hello(user: "alice", secret: secret, device: "d\(Int.random(in: 0..<50))")),
                        into: &buffer)
                    try ControlFrame.write(.join(Join(id: 1, channel: "deck")), into: &buffer)
                    try await channel.writeAndFlush(buffer)
                }
                try await eventually("every connection to be closed") {
                    try await server.metric("ptt_control_connections") == 0
                }
                try await eventually("every session to be freed") {
                    try await server.metric("ptt_control_sessions_in_memory") == 0
                }
            }
        }

        @Test("sessions are freed with TLS too")
        func tlsConnections() async throws {
            try await withTestServer(configure: { $0.tls = true }) { server in
                try await Self.churn(server, count: 500)
                try await eventually("every session to be freed") {
                    try await server.metric("ptt_control_sessions_in_memory") == 0
                }
            }
        }
    }
}
