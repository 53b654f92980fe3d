import Foundation
import NIOCore
import PTTKit
import PTTProtocol
import TestSupport
import Testing

extension Stress {
    @Suite("Silent TLS connections in numbers")
    struct SilentTLSTests {
        @Test("many connections that never start TLS do not keep the server from new clients")
        func manySilentTLS() async throws {
            try await ConnectionDeadlineTests.withTLSServer(helloMs: 500) { server in
                var silent: [RawConnection] = []
                for _ in 0..<200 { silent.append(try await RawConnection.connect(to: server.endpoint)) }
                for connection in silent { _ = try await connection.collectUntilClosed(timeout: .seconds(15)) }
                #expect(
                    try await server.metric(#"ptt_control_connections_closed_total{reason="hello-timeout"}"#) == 200)
                let secret = try await server.addUser("alice")
                let peer = try await server.connect("alice", secret: secret)
                #expect(try await peer.join("deck").channel.name == "deck")
                await peer.close()
            }
        }
    }
}
