import Foundation
import TestSupport
import Testing

/// Runs the browser test scripts in `Tests/Browser/` (Python, Playwright driving Debian's chromium) as
/// processes, like the ffmpeg interop tests run ffmpeg. Each script prints one line of JSON at the end.
enum Browser {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser")
    }

    /// The Python that has Playwright: `$PTT_PYTHON` (the Makefile sets it to the `python3` it installed Playwright
    /// for), else the first `python3` on PATH that can import it (`swift test` may put /usr/bin first). Nil if none.
    static let python: String? = {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let chosen = environment["PTT_PYTHON"], !chosen.isEmpty { candidates.append(chosen) }
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/python3") {
            candidates.append(directory + "/python3")
        }
        var tried: Set<String> = []
        for candidate in candidates where tried.insert(candidate).inserted {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: candidate)
            process.arguments = ["-c", "import playwright.sync_api"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            process.waitUntilExit()
            if process.terminationStatus == 0 { return candidate }
        }
        return nil
    }()

    /// Whether chromium and Playwright for Python are installed (`make test` installs both).
    static var available: Bool { Tools.have("chromium") && python != nil }

    static let unavailableReason: Comment = "needs chromium and Playwright for Python (make test installs both)"

    /// Runs `script` with `arguments` and decodes the JSON line it printed last. A script that failed prints
    /// `{"error": ...}`; that, a non-zero exit or no JSON throws with what the script wrote on stderr.
    static func run<Result: Decodable>(
        _ script: String, _ arguments: [String], as type: Result.Type, timeout: Duration = .seconds(90)
    ) async throws -> Result {
        let python = try require_(Self.python)
        let path = directory.appendingPathComponent(script).path
        let run = try await ToolRun.run(python, [path] + arguments, timeout: timeout.scaled)
        let line = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        if let failure = try? JSONDecoder().decode(ScriptFailure.self, from: Data(line.utf8)) {
            throw TestFailure("\(script): \(failure.error)\n--- stderr:\n\(run.stderr.suffix(6000))")
        }
        guard run.status == 0, let result = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) else {
            throw TestFailure(
                "\(script) exited \(run.status) without a result: \(line.prefix(500))\n--- stderr:\n\(run.stderr.suffix(6000))"
            )
        }
        return result
    }

    private struct ScriptFailure: Decodable { var error: String }
}
