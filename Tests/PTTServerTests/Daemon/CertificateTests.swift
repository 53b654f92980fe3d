import Foundation
import PTTAdmin
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Certificates made with the openssl command, as an operator (or a ship's local CA) would.
struct OperatorCertificates {
    let directory = TestServer.temporaryDirectory()

    /// A local CA; `leaf(_:)` signs server certificates with it.
    init() async throws {
        try await openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"),
            "-out", path("ca.pem"), "-subj", "/CN=Ship Local CA", "-days", "30",
        ])
    }

    func path(_ name: String) -> String { directory + "/" + name }

    /// A server certificate `name`.pem (itself, then the CA: a full chain) and its key `name`.key.
    func leaf(_ name: String, days: Int = 20) async throws {
        try Data("subjectAltName=DNS:pttd.ship.lan,IP:192.0.2.7\n".utf8).write(to: URL(fileURLWithPath: path("san")))
        try await openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("\(name).key"),
            "-out", path("\(name).csr"), "-subj", "/CN=pttd.ship.lan",
        ])
        try await openssl([
            "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
            "-CAcreateserial", "-out", path("\(name).leaf.pem"), "-days", "\(days)", "-extfile", path("san"),
        ])
        let chain =
            try Data(contentsOf: URL(fileURLWithPath: path("\(name).leaf.pem")))
            + Data(contentsOf: URL(fileURLWithPath: path("ca.pem")))
        try chain.write(to: URL(fileURLWithPath: path("\(name).pem")))
    }

    /// The SHA-256 fingerprint openssl computes for `name`'s certificate, as pttd and its clients write it.
    func fingerprint(_ name: String) async throws -> String {
        let line = try await openssl(["x509", "-in", path("\(name).leaf.pem"), "-noout", "-fingerprint", "-sha256"])
        return String(line.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Puts `name`'s files where the server's config points (`server.pem`, `server.key`), as a rotation does.
    func install(_ name: String, key: String? = nil) throws {
        for (from, to) in [("\(name).pem", "server.pem"), ("\(key ?? name).key", "server.key")] {
            try? FileManager.default.removeItem(atPath: path(to))
            try FileManager.default.copyItem(atPath: path(from), toPath: path(to))
        }
    }

    @discardableResult
    private func openssl(_ arguments: [String]) async throws -> String {
        try await Subprocess.run("/usr/bin/openssl", arguments)
    }
}

@Suite("The operator's TLS certificate: served with its chain, shown by pttctl cert, rotated by a reload")
struct CertificateTests {
    @Test("a reload rotates the certificate: open sessions stay, new clients that pinned the old one are told clearly")
    func rotation() async throws {
        let certificates = try await OperatorCertificates()
        try await certificates.leaf("first")
        try await certificates.leaf("second")
        try certificates.install("first")
        let file = try ReloadTests.ConfigFile([
            "tls": true, "tlsCertificate": certificates.path("server.pem"), "tlsKey": certificates.path("server.key"),
        ])
        let first = try await certificates.fingerprint("first")
        let second = try await certificates.fingerprint("second")
        #expect(first != second)
        try await withTestServer(source: file.source) { server in
            let report: CertificateReport = try await server.admin.get("/api/certificate")
            #expect(report.source == .operator)
            #expect(report.fingerprint == first)
            #expect(report.chainLength == 2)
            #expect(report.names == ["pttd.ship.lan", "192.0.2.7"])
            #expect(report.issuer.contains("Ship Local CA"))
            #expect((18...20).contains(report.daysLeft), "\(report.daysLeft) days left")
            #expect(server.server.runtimeInfo?.fingerprint == first)
            let metrics = try await server.admin.getText("/metrics")
            let expiry = try require_(metricValue(metrics, "ptt_tls_certificate_expiry_timestamp_seconds"))
            #expect(expiry > Date().timeIntervalSince1970 + 18 * 86_400)

            let knownHosts = KnownHosts(path: TestServer.temporaryDirectory() + "/known_hosts")
            let secret = try await server.addUser("alice")
            let alice = try await server.connect("alice", secret: secret, knownHosts: knownHosts)

            try certificates.install("second")
            let reload: ReloadReport = try await server.admin.post("/api/reload", body: AdminClient.Empty())
            #expect(reload.certificateChanged)
            #expect(reload.certificate?.fingerprint == second)
            #expect(reload.applied.isEmpty, "the files changed, not the settings: \(reload.applied)")
            // The session opened with the first certificate goes on.
            try await alice.barrier()
            // runtime.json tells local tools the new fingerprint.
            let info = try JSONDecoder().decode(
                RuntimeInfo.self, from: Data(contentsOf: URL(fileURLWithPath: server.data.runtimeInfo)))
            #expect(info.fingerprint == second)
            // A client that pinned the first one is refused, with both fingerprints.
            do {
                _ = try await server.connect("alice", secret: secret, device: "again", knownHosts: knownHosts)
                Issue.record("a client that pinned the old certificate connected")
            } catch ControlClientError.certificateChanged(_, let expected, let actual, _) {
                #expect(expected == first && actual == second)
            }
            // A key that does not belong to the certificate is refused, and the second certificate stays.
            try certificates.install("second", key: "first")
            do {
                let _: ReloadReport = try await server.admin.post("/api/reload", body: AdminClient.Empty())
                Issue.record("a mismatched key was accepted")
            } catch let error as AdminError {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("tlsKey") && error.message.contains("does not belong"), "\(error)")
            }
            let still: CertificateReport = try await server.admin.get("/api/certificate")
            #expect(still.fingerprint == second)
            let fresh = try await server.connect(
                "alice", secret: secret, device: "fresh",
                knownHosts: KnownHosts(path: TestServer.temporaryDirectory() + "/known_hosts"))
            await fresh.close()
            await alice.close()
        }
    }

    @Test("pttd refuses to start with a certificate file that is not one, naming the setting")
    func badCertificateAtStart() async throws {
        let certificates = try await OperatorCertificates()
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: certificates.path("server.pem")))
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: certificates.path("server.key")))
        let file = try ReloadTests.ConfigFile([
            "tls": true, "tlsCertificate": certificates.path("server.pem"), "tlsKey": certificates.path("server.key"),
        ])
        do {
            try await withTestServer(source: file.source) { _ in Issue.record("pttd started") }
        } catch let error as ConfigurationError {
            #expect(error.description.contains("tlsCertificate"), "\(error)")
        }
    }

    @Test("pttctl cert prints the fingerprint clients pin; SIGHUP reloads; pttctl reload says what it did")
    func commandLine() async throws {
        let data = TestServer.temporaryDirectory()
        let config = data + "/config.json"
        try Data(#"{"floor": {"maxTalkTimeMs": 20000}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let (daemon, info) = try await Subprocess.startDaemon(data: data)
        defer { daemon.signal(SIGKILL) }
        let printed = try await Subprocess.run("pttctl", ["--data", data, "cert", "--fingerprint"])
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == info.fingerprint)
        let table = try await Subprocess.run("pttctl", ["--data", data, "cert"])
        #expect(table.contains("self-signed by pttd") && table.contains("days left"), "\(table)")

        try Data(#"{"floor": {"maxTalkTimeMs": 25000}, "logLevel": "debug"}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        daemon.signal(SIGHUP)
        try await daemon.waitForStandardError(containing: "configuration reloaded")
        #expect(daemon.process.isRunning)
        #expect(daemon.standardError.contains("floor.maxTalkTimeMs,logLevel"), "\(daemon.standardError)")

        try Data(#"{"floor": {"maxTalkTimeMs": 25000}, "logLevel": "debug", "maxConnections": 500}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let output = try await Subprocess.run("pttctl", ["--data", data, "reload"])
        #expect(output.contains("reloaded \(config)"), "\(output)")
        #expect(output.contains("applied: nothing changed"), "\(output)")
        #expect(output.contains("needs a restart (the running values stay until then): maxConnections"), "\(output)")

        try Data(#"{"floor": "#.utf8).write(to: URL(fileURLWithPath: config))
        do {
            _ = try await Subprocess.run("pttctl", ["--data", data, "reload"])
            Issue.record("a broken config file was reloaded")
        } catch let failure as TestFailure {
            #expect("\(failure)".contains("not valid JSON"), "\(failure)")
        }
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }
}
