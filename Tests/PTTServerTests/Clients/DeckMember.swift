import Foundation
import ServerTestSupport
import TestSupport

/// A user of a test server as the `ptt` command line signs in for it (plain TCP, its name and secret), and the `ptt`
/// commands the interop suites run for it in the channel `deck`.
struct DeckMember {
    var server: TestServer
    var user: String
    var secret: String

    /// The options every `ptt` command takes to sign in as this member; the wait for `welcome` is scaled like the
    /// tests' waits (under ThreadSanitizer with the whole pass running, `ptt answer` and `ptt talk` gave up after the
    /// app's 3 s: "timed out waiting for welcome").
    var signIn: [String] {
        [
            "--no-tls", "--server", server.endpoint.description, "--user", user, "--secret", secret,
            "--connect-timeout",
            TestTimeouts.lifetime(3),
        ]
    }

    /// `ptt listen`: records the first `packets` packets it hears in `deck` into `out` (Ogg Opus), then exits; it
    /// gives up after 40 s (scaled, like the waits for it: see `TestTimeouts.lifetime`).
    func listen(out: String, packets: Int) throws -> Subprocess {
        try Subprocess(
            "ptt",
            [
                "listen", "--channel", "deck", "--out", out, "--packets", "\(packets)", "--seconds",
                TestTimeouts.lifetime(40),
            ] + signIn)
    }

    /// `ptt talk`: sends the Ogg Opus `file` to `deck`, then exits.
    func talk(_ file: String) throws -> Subprocess {
        try Subprocess("ptt", ["talk", "--channel", "deck", "--file", file] + signIn)
    }
}

/// Runs `body` with a test server on which alice and bob are users, as the interop tests begin.
func withAliceAndBob(_ body: (TestServer, _ alice: DeckMember, _ bob: DeckMember) async throws -> Void) async throws {
    try await withTestServer { server in
        let alice = DeckMember(server: server, user: "alice", secret: try await server.addUser("alice"))
        let bob = DeckMember(server: server, user: "bob", secret: try await server.addUser("bob"))
        try await body(server, alice, bob)
    }
}
