import Foundation
import PTTProtocol
import TestSupport
import Testing

/// The Debian package (Docs/packaging/make-deb.sh, as `make deb` runs it), built here from the test build's
/// binaries: its contents, control data and maintainer scripts, the unit's hardening, and pttd started from
/// the unpacked package with the unit's command line.
@Suite(
    "Packaging", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: Tools.have("dpkg-deb", "dpkg"), "needs dpkg-deb (Debian)"))
struct PackagingTests {
    static var packaging: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/packaging")
    }

    static func tool(_ name: String, _ arguments: [String]) async throws -> String {
        let run = try await ToolRun.run(try require_(Tools.path(name)), arguments, timeout: .seconds(120))
        guard run.status == 0 else { throw TestFailure("\(name) \(arguments) failed: \(run.stderr)") }
        return run.stdout
    }

    /// Builds the package from the built binaries, uncompressed (the debug binaries are large; `make deb` uses xz).
    static func buildPackage() async throws -> String {
        let out = TestServer.temporaryDirectory()
        let script = packaging.appendingPathComponent("make-deb.sh").path
        let run = try await ToolRun.run(
            "/usr/bin/env", ["PTT_DEB_COMPRESSION=none", "sh", script, Executables.directory.path, out, "0.0.1-test"],
            timeout: .seconds(120))
        guard run.status == 0 else { throw TestFailure("make-deb.sh failed: \(run.stderr)") }
        return try require_(run.stdout.split(separator: "\n").last.map(String.init))
    }

    @Test("the package holds the programs, the unit, the config as a conffile, the docs, and sound maintainer scripts")
    func contents() async throws {
        let deb = try await Self.buildPackage()
        defer { Self.remove(deb) }
        let paths = try await Self.tool("dpkg-deb", ["--contents", deb]).split(separator: "\n").compactMap {
            $0.split(separator: " ").last.map { String($0).replacingOccurrences(of: "./", with: "/") }
        }
        for path in [
            "/usr/bin/pttd", "/usr/bin/pttctl", "/usr/bin/ptt", "/lib/systemd/system/pttd.service",
            "/etc/pttd/config.json", "/usr/share/doc/pttd/OPERATIONS.md", "/usr/share/doc/pttd/help/pttd.txt",
            "/usr/share/doc/pttd/monitoring/pttd-alerts.yml",
        ] {
            #expect(paths.contains(path), "\(path) missing")
        }
        let control = try await Self.tool("dpkg-deb", ["--field", deb])
        #expect(control.contains("Package: pttd") && control.contains("Version: 0.0.1-test"))
        #expect(control.contains("Depends: adduser"))
        let scripts = TestServer.temporaryDirectory()
        _ = try await Self.tool("dpkg-deb", ["--control", deb, scripts])
        let conffiles = try String(contentsOfFile: scripts + "/conffiles", encoding: .utf8)
        #expect(conffiles == "/etc/pttd/config.json\n")
        for script in ["postinst", "prerm", "postrm"] {
            #expect(FileManager.default.isExecutableFile(atPath: scripts + "/" + script))
            _ = try await Self.tool("sh", ["-n", scripts + "/" + script])  // parses
        }
        let postinst = try String(contentsOfFile: scripts + "/postinst", encoding: .utf8)
        #expect(postinst.contains("adduser --system --group") && postinst.contains("install -d -m 0750 -o pttd"))
        let root = try await Self.unpack(deb)
        defer { Self.remove(root) }
        let help = try String(contentsOfFile: root + "/usr/share/doc/pttd/help/pttctl-backup.txt", encoding: .utf8)
        #expect(help.contains("pttctl backup"))
    }

    @Test("the unit runs pttd as its own user, hardened, restarted on failure, stopped with SIGTERM")
    func unit() throws {
        let unit = try String(contentsOf: Self.packaging.appendingPathComponent("pttd.service"), encoding: .utf8)
        for line in [
            "User=pttd", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
            "ReadWritePaths=/var/lib/pttd", "Restart=on-failure", "KillSignal=SIGTERM", "CapabilityBoundingSet=",
            "ExecStart=/usr/bin/pttd --data /var/lib/pttd --config /etc/pttd/config.json",
            "ExecReload=/bin/kill -HUP $MAINPID",
        ] {
            #expect(unit.split(separator: "\n").contains { $0 == line }, "\(line) missing")
        }
    }

    @Test(
        "pttd from the unpacked package starts with the unit's command line and the packaged config, and stops on SIGTERM"
    )
    func startsAsTheUnitSays() async throws {
        let deb = try await Self.buildPackage()
        let root = try await Self.unpack(deb)
        defer {
            Self.remove(deb)
            Self.remove(root)
        }
        let unit = try String(contentsOf: Self.packaging.appendingPathComponent("pttd.service"), encoding: .utf8)
        let execStart = try require_(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        var arguments = execStart.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        // The unit's paths, inside the unpacked root and a scratch data directory; then free ports (flags win
        // over the config file), so that tests never take fixed ports.
        let data = TestServer.temporaryDirectory()
        let program = root + arguments.removeFirst()
        arguments = arguments.map { $0 == "/var/lib/pttd" ? data : $0.hasPrefix("/etc/") ? root + $0 : $0 }
        arguments += [
            "--control-host", "127.0.0.1", "--control-port", "0", "--media-port", "0", "--admin-port", "0",
            "--web-host", "127.0.0.1", "--web-port", "0",
        ]
        let daemon = try Subprocess(program, arguments)
        try await daemon.waitForStandardError(containing: "pttd listening")
        let info = try JSONDecoder().decode(
            RuntimeInfo.self, from: Data(contentsOf: URL(fileURLWithPath: data + "/runtime.json")))
        #expect(info.tls && info.webURL != nil)
        let health = try await WebListenerTests.request(info.adminURL + "/api/health")
        #expect(health.status == 401, "the admin API answers, and wants its token")
        // `systemctl reload pttd` (ExecReload): the packaged config is read again, and pttd goes on.
        daemon.signal(SIGHUP)
        try await daemon.waitForStandardError(containing: "configuration reloaded")
        #expect(daemon.process.isRunning)
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(10)) == 0)
        #expect(daemon.standardError.contains("pttd stopped"))
    }

    /// A package (its directory) or an unpacked root: the debug binaries make them hundreds of MB.
    static func remove(_ path: String) {
        let directory = path.hasSuffix(".deb") ? (path as NSString).deletingLastPathComponent : path
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func unpack(_ deb: String) async throws -> String {
        let root = TestServer.temporaryDirectory()
        _ = try await tool("dpkg-deb", ["--extract", deb, root])
        return root
    }
}
