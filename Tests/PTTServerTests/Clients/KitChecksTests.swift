import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// Where the script and python3 are (outside the suite: its traits cannot refer to the suite's own members).
enum KitCheckScript {
    static let python: String? =
        ProcessInfo.processInfo.environment["PTT_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        ?? Tools.path("python3")

    static let script: String = PackagePaths.tests
        .appendingPathComponent("Scripts/check-kit-dependencies.py").path
}

/// The kit checks `make lint` runs (Tests/Scripts/check-kit-dependencies.py, issue 22) find what they are meant to:
/// each runs on a small synthetic package description (`--json`, in the shapes `swift package dump-package` and
/// `swift package describe --type json` print) and, for the import check, on Swift files in a temporary directory.
@Suite(
    "Kit dependency and source checks",
    .enabled(if: KitCheckScript.python != nil, "needs python3 (make test-tools installs it)"))
struct KitChecksTests {
    /// A target of `dump-package`: `dependencies` are `"Name"` (by name), `"target:Name"`, or `"Product@package"`.
    static func target(
        _ name: String, _ dependencies: [String] = [], type: String = "regular", path: String? = nil,
        pkgConfig: String? = nil
    ) -> [String: Any] {
        var entry: [String: Any] = [
            "name": name, "type": type, "exclude": [String](),
            "dependencies": dependencies.map { dependency -> [String: Any] in
                if dependency.hasPrefix("target:") {
                    return ["target": [String(dependency.dropFirst("target:".count)), NSNull()]]
                }
                let parts = dependency.split(separator: "@").map(String.init)
                if parts.count == 2 { return ["product": [parts[0], parts[1], NSNull(), NSNull()]] }
                return ["byName": [dependency, NSNull()]]
            },
        ]
        if let path { entry["path"] = path }
        if let pkgConfig { entry["pkgConfig"] = pkgConfig }
        return entry
    }

    /// Writes a `dump-package` JSON of `targets` into `directory` and returns its path.
    static func writeDump(
        _ targets: [[String: Any]], in directory: String, name: String = "dump.json"
    ) throws
        -> String
    {
        let document: [String: Any] = [
            "name": "synthetic", "toolsVersion": ["_version": "6.1.0"], "packageKind": ["root": ["/synthetic"]],
            "targets": targets,
        ]
        let path = directory + "/" + name
        try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(
            to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs the script on `json` files, with `directory` as the package root; returns its status and output.
    static func check(_ json: [String], root directory: String) async throws -> (status: Int32, output: String) {
        let arguments = [KitCheckScript.script, "--package-path", directory] + json.flatMap { ["--json", $0] }
        let run = try Subprocess(try require_(KitCheckScript.python, "python3"), arguments)
        let status = try await run.waitForExit(timeout: .seconds(30))
        let output = run.outputLines.joined(separator: "\n")
        #expect(run.standardError.isEmpty, "stderr: \(run.standardError)")
        return (status, output)
    }

    @Test("a system-library target, a C target and a GRDB product reached through other targets fail, with chains")
    func forbiddenDependenciesFail() async throws {
        let root = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A C target known only from its files (dump-package does not say a target's language).
        try FileManager.default.createDirectory(atPath: root + "/Sources/CFast", withIntermediateDirectories: true)
        try Data("int fast(void) { return 1; }\n".utf8).write(to: URL(fileURLWithPath: root + "/Sources/CFast/fast.c"))
        try FileManager.default.createDirectory(atPath: root + "/Sources/Helper", withIntermediateDirectories: true)
        let dump = try Self.writeDump(
            [
                Self.target("PTTKit", ["Helper", "NIOCore@swift-nio", "NIOSSL@swift-nio-ssl"]),
                Self.target("Helper", ["target:Store", "CFast", "Crypto@swift-crypto"]),
                Self.target("Store", ["CSys", "GRDB@GRDB.swift"]),
                Self.target("CSys", type: "system", pkgConfig: "libsys"),
                Self.target("CFast"),
                // Not reached from PTTKit: never named.
                Self.target("Server", ["PTTKit", "PostgresNIO@postgres-nio", "CUnrelated"]),
                Self.target("CUnrelated", type: "system"),
            ], in: root)
        let (status, output) = try await Self.check([dump], root: root)
        #expect(status == 1, "\(output)")
        #expect(output.contains("PTTKit dependencies: FAILED: 3 not allowed"), "\(output)")
        #expect(output.contains("system-library target CSys (pkg-config libsys): PTTKit → Helper → Store → CSys"))
        #expect(output.contains("C-language target CFast (sources: fast.c): PTTKit → Helper → CFast"), "\(output)")
        #expect(
            output.contains(
                "product GRDB from package GRDB.swift: PTTKit → Helper → Store → GRDB (product of GRDB.swift)"),
            "\(output)")
        #expect(output.contains("PTTKit reaches them through Helper"), "\(output)")
        for innocent in ["NIOCore", "NIOSSL", "Crypto", "PostgresNIO", "CUnrelated", "Server"] {
            #expect(!output.contains(innocent), "\(innocent) named: \(output)")
        }
    }

    @Test("describe's module types count: a ClangTarget fails, and so does a product of swift-log")
    func describeModuleTypes() async throws {
        let root = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let describe = root + "/describe.json"
        let describeDocument: [String: Any] = [
            "name": "synthetic", "manifest_display_name": "synthetic", "tools_version": "6.1",
            "targets": [
                [
                    "name": "PTTKit", "module_type": "SwiftTarget", "path": "Sources/PTTKit", "sources": [String](),
                    "target_dependencies": ["CUDP"], "product_dependencies": ["Logging"], "type": "library",
                ],
                [
                    "name": "CUDP", "module_type": "ClangTarget", "path": "Sources/CUDP", "sources": ["udp.c"],
                    "type": "library",
                ],
            ],
        ]
        try JSONSerialization.data(withJSONObject: describeDocument).write(to: URL(fileURLWithPath: describe))
        let dump = try Self.writeDump(
            [Self.target("PTTKit", ["CUDP", "Logging@swift-log"]), Self.target("CUDP", path: "Sources/CUDP")], in: root)
        let (status, output) = try await Self.check([describe, dump], root: root)
        #expect(status == 1, "\(output)")
        #expect(output.contains("C-language target CUDP (sources: udp.c): PTTKit → CUDP"), "\(output)")
        #expect(output.contains("product Logging from package swift-log: PTTKit → Logging"), "\(output)")
    }

    @Test("Swift targets and products of swift-nio, swift-nio-ssl, swift-crypto (and swift-atomics) pass")
    func allowedDependenciesPass() async throws {
        let root = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dump = try Self.writeDump(
            [
                Self.target("PTTKit", ["Helper", "NIOCore@swift-nio", "NIOSSL@swift-nio-ssl"]),
                Self.target("Helper", ["Crypto@swift-crypto", "_CryptoExtras@swift-crypto", "Atomics@swift-atomics"]),
                // Others may depend on anything: only the kit's closure counts.
                Self.target("Server", ["PTTKit", "GRDB@GRDB.swift", "CSys"]),
                Self.target("CSys", type: "system"),
            ], in: root)
        let (status, output) = try await Self.check([dump], root: root)
        #expect(status == 0, "\(output)")
        #expect(
            output.contains(
                "PTTKit dependencies: OK (targets: Helper, PTTKit; products: Atomics (swift-atomics), Crypto (swift-crypto), NIOCore (swift-nio), NIOSSL (swift-nio-ssl), _CryptoExtras (swift-crypto))"
            ), "\(output)")
        #expect(output.contains("PTTKit sources: OK"), "\(output)")
    }

    @Test("an unguarded import of Glibc or Darwin fails with file:line; one under #if canImport or #if os passes")
    func platformImportsMustBeGuarded() async throws {
        let root = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for directory in ["Sources/PTTKit/Sub", "Sources/Helper"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        func write(_ path: String, _ lines: [String]) throws {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: root + "/" + path))
        }
        try write(
            "Sources/PTTKit/Guarded.swift",
            [
                "import Foundation", "#if canImport(Darwin)", "import Darwin", "#elseif canImport(Glibc)",
                "@preconcurrency import Glibc", "#elseif canImport(Musl)", "import Musl", "#endif", "#if os(Linux)",
                "#if DEBUG", "import func Glibc.exit", "#endif", "#endif", "// import Glibc", "/* import Darwin */",
            ])
        try write(
            "Sources/PTTKit/Sub/Bare.swift",
            ["import Foundation", "", "import Glibc", "#if DEBUG", "import Darwin", "#endif"])
        try write("Sources/Helper/Exported.swift", ["@_exported import Musl"])
        let dump = try Self.writeDump(
            [Self.target("PTTKit", ["Helper"], path: "Sources/PTTKit"), Self.target("Helper")], in: root)
        let (status, output) = try await Self.check([dump], root: root)
        #expect(status == 1, "\(output)")
        #expect(output.contains("PTTKit dependencies: OK"), "\(output)")
        #expect(output.contains("PTTKit sources: FAILED: 3 unguarded platform imports"), "\(output)")
        #expect(output.contains("Sources/PTTKit/Sub/Bare.swift:3: import Glibc outside"), "\(output)")
        #expect(output.contains("Sources/PTTKit/Sub/Bare.swift:5: import Darwin outside"), "\(output)")
        #expect(output.contains("Sources/Helper/Exported.swift:1: import Musl outside"), "\(output)")
        #expect(!output.contains("Guarded.swift"), "\(output)")

        try FileManager.default.removeItem(atPath: root + "/Sources/PTTKit/Sub/Bare.swift")
        try FileManager.default.removeItem(atPath: root + "/Sources/Helper/Exported.swift")
        let (guardedStatus, guardedOutput) = try await Self.check([dump], root: root)
        #expect(guardedStatus == 0, "\(guardedOutput)")
        #expect(guardedOutput.contains("PTTKit sources: OK (1 Swift file of PTTKit, Helper"), "\(guardedOutput)")
    }
}
