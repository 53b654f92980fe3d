import Foundation
import TestSupport
import Testing

/// Runs the browser test scripts in `Tests/Browser/` (Python, Playwright driving Debian's chromium) as
/// processes, like the ffmpeg interop tests run ffmpeg. Each script prints one line of JSON at the end.
enum Browser {
    static var directory: URL {
        PackagePaths.tests
            .appendingPathComponent("Browser")
    }

    /// The Python that has Playwright (see ``Tools/python(importing:)``). Nil if none.
    static let python: String? = Tools.python(importing: "playwright.sync_api")

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
