#if os(Linux)
import PTTKit
import PTTProtocol

/// Where both kit benchmarks (`kit-wake`, `kit-push-memory`) start: users ann and bob, channel "deck", and bob's
/// membership of it from long ago.
struct KitDeck {
    let annSecret: String
    let bob: PTTCredentials
    /// Bob's first connection, closed: a bare control connection that joined "deck", no media, so the relay never
    /// heard him. Over TLS it pinned the certificate, as the app's first launch did.
    let earlier: ControlClient

    /// Makes the users and the channel on `pttd` and bob's earlier membership.
    static func make(on pttd: KitBenchServer) async throws -> KitDeck {
        let annSecret = try await pttd.addUser("ann")
        let bobSecret = try await pttd.addUser("bob")
        try await pttd.addChannel("deck")
        let bob = PTTCredentials(user: "bob", secret: bobSecret, device: "bob-phone")
        let earlier = try await ControlClient.connect(
            to: pttd.endpoint,
            hello: bob.hello(role: .app, client: "pttbench"),
            security: pttd.controlSecurity)
        let reply = try await earlier.request(.join(Join(channel: "deck")))
        await earlier.close()
        guard case .joined = reply else { throw BenchError("bob's join answered \(reply.type)") }
        return KitDeck(annSecret: annSecret, bob: bob, earlier: earlier)
    }
}
#endif
