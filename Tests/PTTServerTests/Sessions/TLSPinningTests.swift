import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import Testing

@Suite("TLS on the control connection, pinned on first use")
struct TLSPinningTests {
    @Test("the first connection pins the certificate, later ones trust it, a changed one is refused")
    func pinning() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let secret = try await server.addUser("alice")
            let knownHosts = KnownHosts(path: TestServer.temporaryDirectory() + "/known_hosts")
            let fingerprint = try #require(server.server.runtimeInfo?.fingerprint)

            let first = try await server.connect("alice", secret: secret, knownHosts: knownHosts)
            #expect(first.client.pinnedCertificate)
            #expect(first.client.serverFingerprint == fingerprint)
            #expect(try knownHosts.verdict(for: server.endpoint.description, fingerprint: fingerprint) == .trusted)
            _ = try await first.join("deck")

            let second = try await server.connect("alice", secret: secret, device: "other", knownHosts: knownHosts)
            #expect(second.client.pinnedCertificate == false)

            // Someone else's certificate pinned for this address: the client must refuse to talk.
            let impostor = KnownHosts(path: TestServer.temporaryDirectory() + "/known_hosts")
            _ = try impostor.verdict(for: server.endpoint.description, fingerprint: "AA:BB")
            do {
                _ = try await server.connect("alice", secret: secret, device: "third", knownHosts: impostor)
                Issue.record("connected despite a changed certificate")
            } catch ControlClientError.certificateChanged(let endpoint, let expected, let actual, _) {
                #expect(endpoint == server.endpoint.description)
                #expect(expected == "AA:BB")
                #expect(actual == fingerprint)
            }
        }
    }

    @Test("a plain-text client cannot talk to a TLS server")
    func plainToTLS() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let secret = try await server.addUser("alice")
            await #expect(throws: ControlClientError.self) {
                _ = try await ControlClient.connect(
                    to: server.endpoint, hello: Hello(user: "alice", secret: secret, device: "d"),
                    security: .plain, timeout: .seconds(3))
            }
        }
    }
}
