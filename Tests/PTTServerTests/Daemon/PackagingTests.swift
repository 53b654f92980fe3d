import Foundation
import PTTProtocol
import ServerTestSupport
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
        PackagePaths.root.appendingPathComponent("Docs/packaging")
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

    @Test("the programs are stripped, and their debug information is in pttd-dbgsym, found by build-id and debuglink")
    func debugSymbolsApart() async throws {
        let deb = try await Self.buildPackage()
        defer { Self.remove(deb) }
        let dbgsym = try require_(
            try FileManager.default.contentsOfDirectory(atPath: (deb as NSString).deletingLastPathComponent)
                .first { $0.hasPrefix("pttd-dbgsym_0.0.1-test_") && $0.hasSuffix(".deb") }
                .map { ((deb as NSString).deletingLastPathComponent as NSString).appendingPathComponent($0) },
            "no pttd-dbgsym package beside \(deb)")
        let control = try await Self.tool("dpkg-deb", ["--field", dbgsym])
        #expect(control.contains("Package: pttd-dbgsym") && control.contains("Version: 0.0.1-test"))
        #expect(control.contains("Depends: pttd (= 0.0.1-test)") && control.contains("Section: debug"))
        let root = try await Self.unpack(deb)
        let debugRoot = try await Self.unpack(dbgsym)
        defer {
            Self.remove(root)
            Self.remove(debugRoot)
        }
        var buildIDs: [String] = []
        for program in ["pttd", "pttctl", "ptt"] {
            let binary = root + "/usr/bin/" + program
            let sections = try await Self.sectionNames(binary)
            #expect(!sections.contains { $0.hasPrefix(".debug_") }, "\(program) still has debug sections")
            #expect(!sections.contains(".symtab"), "\(program) still has its symbol table")
            #expect(sections.contains(".gnu_debuglink"), "\(program) has no debuglink")
            let buildID = try await Self.buildID(binary)
            buildIDs.append(buildID)
            // Where gdb, the Swift backtracer and debuginfod clients look: /usr/lib/debug/.build-id/xx/rest.debug.
            let debugFile =
                debugRoot + "/usr/lib/debug/.build-id/\(buildID.prefix(2))/\(buildID.dropFirst(2)).debug"
            #expect(FileManager.default.fileExists(atPath: debugFile), "\(program): no \(debugFile)")
            #expect(try await Self.buildID(debugFile) == buildID, "\(program)'s debug file is another build's")
            #expect(try await Self.sectionNames(debugFile).contains(".debug_info"))
            let link = try await Self.debugLink(binary)
            #expect(link == "\(buildID.dropFirst(2)).debug", "\(program)'s debuglink names \(link)")
        }
        #expect(Set(buildIDs).count == 3)
        for buildID in buildIDs { #expect(control.contains(buildID), "Build-Ids should list \(buildID)") }
    }

    /// The names of an ELF file's sections.
    static func sectionNames(_ path: String) async throws -> [String] {
        try await tool("readelf", ["--section-headers", "--wide", path]).split(separator: "\n").compactMap { line in
            guard let open = line.firstIndex(of: "]") else { return nil }
            return line[line.index(after: open)...].split(separator: " ").first.map(String.init)
        }
    }

    /// The file name in an ELF file's `.gnu_debuglink` section (the name, NUL, padding, then a CRC: read as hex,
    /// as the CRC's bytes are not text).
    static func debugLink(_ path: String) async throws -> String {
        let dump = try await tool("readelf", ["--hex-dump=.gnu_debuglink", path])
        let hex = dump.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("0x") }
            .flatMap { $0.split(separator: " ").dropFirst().prefix(4) }.joined()
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while let end = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), index < hex.endIndex,
            let byte = UInt8(hex[index..<end], radix: 16), byte != 0
        {
            bytes.append(byte)
            index = end
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An ELF file's GNU build-id, in hex.
    static func buildID(_ path: String) async throws -> String {
        let notes = try await tool("readelf", ["--notes", path])
        let line = try require_(notes.split(separator: "\n").first { $0.contains("Build ID:") }, "\(path): no build-id")
        return String(try require_(line.split(separator: " ").last))
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
