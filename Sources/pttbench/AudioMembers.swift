#if os(Linux)
import Foundation
import NIOCore
import PTTKit
import PTTProtocol

extension PTTBench {
    /// How the bench's control clients connect: plain, or TLS pinned to the fingerprint pttd wrote to runtime.json
    /// (a known_hosts file of its own in pttd's temporary data directory, so nothing is trusted on first use).
    func controlSecurity(server: ServerProcess, endpoint: ServerEndpoint) throws -> ControlSecurity {
        guard daemon.tls else { return .plain }
        guard server.runtime.tls, let fingerprint = server.runtime.fingerprint else {
            throw BenchError("pttd was started with TLS but runtime.json has no fingerprint")
        }
        let path = server.dataDirectory + "/bench-known_hosts"
        try Data("\(endpoint.description) \(fingerprint)\n".utf8).write(to: URL(fileURLWithPath: path))
        return .tls(KnownHosts(path: path))
    }

    /// Connects `count` devices of `user` and joins each to `channel`, connectParallelism at a time. Every
    /// client's events are read and dropped, for as long as the connection lives. Returns the clients in index order.
    func joinAll(
        count: Int, channel: String, user: AddUserResponse, server: ServerProcess, group: EventLoopGroup,
        deadline: ContinuousClock.Instant, budget: Double,
        clients: inout [ControlClient], device: @escaping @Sendable (Int) -> String
    ) async throws -> [(ControlClient, Joined)] {
        let endpoint = ServerEndpoint(host: "127.0.0.1", port: server.runtime.controlPort)
        let security = try controlSecurity(server: server, endpoint: endpoint)
        let expectTLS = daemon.tls
        return try await connectInParallel(
            count, parallelism: setup.connectParallelism, deadline: deadline,
            overrun: "joining took longer than \(budget) s"
        ) { index in
            let client = try await ControlClient.connect(
                to: endpoint,
                hello: Hello(user: "bench", secret: user.secret, device: device(index), client: "pttbench"),
                security: security, timeout: .seconds(30), group: group)
            do {
                if expectTLS && (client.pinnedCertificate || client.serverFingerprint != server.runtime.fingerprint) {
                    throw BenchError("TLS: the server's certificate was not the one pinned from runtime.json")
                }
                let reply = try await client.request(.join(Join(channel: channel)), timeout: .seconds(30))
                guard case .joined(let joined) = reply else { throw BenchError("join answered \(reply.type)") }
                return (client, joined)
            } catch {
                await client.close()
                throw error
            }
        } arrived: { member in
            let client = member.0
            clients.append(client)
            // Events for this client (member-joined of everyone after it…) are read and dropped.
            let stream = client.messages
            Task {
                for await _ in stream {}
            }
        }
    }
}
#endif
