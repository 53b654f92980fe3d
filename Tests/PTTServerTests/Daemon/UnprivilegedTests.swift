import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// pttd as the systemd unit runs it: its own user, no capability. (As root every socket option succeeds: a
/// privileged one, SO_DEBUG set by mistake for TCP_NODELAY, made pttd close every control and web connection
/// when run as the package's `pttd` user.)
@Suite("pttd without privileges")
struct UnprivilegedTests {
    /// `nobody` when the tests run as root; otherwise the tests' own user is already unprivileged.
    static var user: UInt32? { getuid() == 0 ? 65_534 : nil }

    @Test("pttd run as an unprivileged user accepts control connections over TLS, joins and the web listener")
    func servesWithoutPrivileges() async throws {
        let data = TestServer.temporaryDirectory()
        if let user = Self.user { #expect(chown(data, user, user) == 0) }
        let (daemon, info) = try await Subprocess.startDaemon(data: data, user: Self.user)
        defer { daemon.signal(SIGKILL) }
        let added = try await Subprocess.run("pttctl", ["--data", data, "user", "add", "jane"])
        let secret = try #require(
            added.split(separator: "\n").first { $0.hasPrefix("secret: ") }?.dropFirst("secret: ".count))
        let client = try await ControlClient.connect(
            to: ServerEndpoint(host: "127.0.0.1", port: info.controlPort),
            hello: Hello(user: "jane", secret: String(secret), device: "phone", role: .app, client: "tests"),
            security: .tls(KnownHosts(path: TestServer.temporaryDirectory() + "/known_hosts")),
            timeout: .seconds(10).scaled)
        let reply = try await client.request(.join(Join(channel: "deck")))
        #expect(reply.type == "joined")
        await client.close()
        let page = try await Subprocess.run(
            "/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}\\n", try #require(info.webURL)])
        #expect(page == "200")
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        for report in ["WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer"] {
            #expect(!daemon.standardError.contains(report), "\(daemon.standardError)")
        }
    }
}
