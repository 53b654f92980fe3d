import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// When the consumer can be built (outside the suite: its traits cannot refer to the suite's own members).
enum KitConsumerBuild {
    static var sanitizedRun: Bool {
        let environment = ProcessInfo.processInfo.environment
        return TestTimeouts.scale > 1 || environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil
    }

    /// An app's view of PTTKit (issue 22): fixtures/kit-consumer, a package that depends on this one by path and
    /// imports PTTKit alone, is built from scratch in a temporary directory and run. Building it compiles only what the
    /// kit needs, so it also shows that no server package (GRDB, postgres-nio, async-http-client) and no server target
    /// of ours is pulled in.
    ///
    /// It compiles swift-nio, swift-nio-ssl and swift-crypto (BoringSSL twice) from nothing: minutes on 2 cores, so it
    /// runs in the heavy pass of `make test`, alone (HEAVY in the Makefile), and not in the sanitized passes, where it
    /// would measure nothing a sanitizer can see.
    static let swift: String? =
        Tools.path("swift")
        ?? (FileManager.default.isExecutableFile(atPath: "/opt/swift/usr/bin/swift") ? "/opt/swift/usr/bin/swift" : nil)
}

@Suite(
    "Kit consumer package", .serialized, .timeLimit(.minutes(30)),
    .disabled(
        if: KitConsumerBuild.sanitizedRun,
        "a sanitized pass (PTT_TEST_TIMEOUT_SCALE or TSAN/ASAN_OPTIONS set): building the kit consumer from scratch takes minutes and shows a sanitizer nothing"
    ),
    .enabled(if: KitConsumerBuild.swift != nil, "needs the swift driver on PATH or in /opt/swift/usr/bin"))
struct KitConsumerTests {
    static let root: URL = PackagePaths.root

    /// Modules that must not be built for the kit: server-only packages and targets, and our C and system-library
    /// targets.
    static let forbiddenModules: [String] = [
        "GRDB", "PostgresNIO", "AsyncHTTPClient", "Logging", "X509", "ArgumentParser", "PTTServer", "PTTStore",
        "PTTRelay", "PTTAdmin", "PTTCore", "APNs", "AudioFiles", "Opus", "CUDPBatch", "NIOHTTP2",
    ]

    /// SwiftPM leaves lock files named after the scratch path in the temporary directory
    /// (/tmp/_tmp_pttd-test-XXXX_scratch.lock, ..._scratch_workspace-state.json.lock).
    static func removeLockFiles(of scratch: String) {
        let temporary = FileManager.default.temporaryDirectory.path
        let prefix = scratch.replacingOccurrences(of: "/", with: "_")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".lock") {
            try? FileManager.default.removeItem(atPath: temporary + "/" + name)
        }
    }

    @Test("a package that imports PTTKit alone builds only the kit's closure, and its program runs")
    func buildsAndRuns() async throws {
        let swift = try require_(KitConsumerBuild.swift, "swift")
        let directory = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A copy, so that the build writes nothing into the tree (Package.resolved, .build); the copy names this
        // package by its absolute path, and starts from the tree's pins (the versions every other test ran with).
        let package = directory + "/kit-consumer"
        try FileManager.default.copyItem(
            atPath: Self.root.appendingPathComponent("fixtures/kit-consumer").path, toPath: package)
        try? FileManager.default.removeItem(atPath: package + "/.build")
        let manifestPath = package + "/Package.swift"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        let relative = "let pttrelayPath = \"../..\""
        #expect(manifest.contains(relative), "the fixture's manifest no longer says \(relative)")
        try manifest.replacingOccurrences(of: relative, with: "let pttrelayPath = \"\(Self.root.path)\"")
            .write(toFile: manifestPath, atomically: true, encoding: .utf8)
        try? FileManager.default.copyItem(
            atPath: Self.root.appendingPathComponent("Package.resolved").path, toPath: package + "/Package.resolved")

        let scratch = directory + "/scratch"
        defer { Self.removeLockFiles(of: scratch) }
        let start = ContinuousClock.now
        let build = try await ToolRun.run(
            swift, ["build", "--package-path", package, "--scratch-path", scratch], timeout: .seconds(25 * 60))
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        guard build.status == 0 else {
            throw TestFailure(
                "swift build of the kit consumer failed (\(build.status)):\n\(build.stdout.suffix(6000))\n\(build.stderr.suffix(4000))"
            )
        }
        print("kit-consumer: built from scratch in \(Int(seconds)) s")

        // What was compiled: SwiftPM makes a directory NAME.build for every target of the graph, but object files
        // only in those it builds (Swift modules also get Modules/NAME.swiftmodule).
        let binPath = try await ToolRun.run(
            swift, ["build", "--package-path", package, "--scratch-path", scratch, "--show-bin-path"],
            timeout: .seconds(120))
        let bin = try require_(binPath.stdout.split(separator: "\n").last.map(String.init), "the bin path")
        var built = Set<String>()
        for entry in try FileManager.default.contentsOfDirectory(atPath: bin) where entry.hasSuffix(".build") {
            let objects = FileManager.default.enumerator(atPath: bin + "/" + entry)?.contains {
                ($0 as? String)?.hasSuffix(".o") == true
            }
            if objects == true { built.insert(String(entry.dropLast(".build".count))) }
        }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: bin + "/Modules")) ?? []
        where entry.hasSuffix(".swiftmodule") {
            built.insert(String(entry.dropLast(".swiftmodule".count)))
        }
        for needed in ["PTTKit", "PTTProtocol", "RTP", "NIOCore", "NIOPosix", "NIOSSL"] {
            #expect(built.contains(needed), "\(needed) was not built: \(built.sorted())")
        }
        for module in Self.forbiddenModules {
            #expect(!built.contains(module), "\(module) was built for a package that needs PTTKit alone")
            #expect(
                !build.stdout.contains("Compiling \(module) "),
                "swift build compiled \(module) for a package that needs PTTKit alone")
        }

        let knownHosts = directory + "/known_hosts"
        let run = try await ToolRun.run(bin + "/kit-consumer", [knownHosts], timeout: .seconds(30))
        #expect(run.status == 0, "kit-consumer failed: \(run.stderr)")
        #expect(
            run.stdout.split(separator: "\n").map(String.init) == [
                "endpoint [::1]:7801 host ::1 port 7801",
                "backoff 100 200 300 300 ms",
                "pinned trusted",
                "known hosts pinnedNow trusted changed(expected: \"0123\")",
                "state ready",
            ], "\(run.stdout)")
        #expect(try String(contentsOfFile: knownHosts, encoding: .utf8) == "[::1]:7801 0123\n")
    }
}
