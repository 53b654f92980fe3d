import Foundation
import TestSupport
import Testing

/// schemathesis (PyPI; `make test-tools` installs it) run as a process against a running pttd's admin API, from the
/// OpenAPI document the server serves.
enum Schemathesis {
    /// The checks run on every answer: no 5xx, only documented statuses and content types, bodies that match their
    /// schemas.
    static let checks = [
        "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance",
    ]

    /// The Python that has schemathesis (see ``Tools/python(importing:)``). Nil if none.
    static let python: String? = Tools.python(importing: "schemathesis.cli")

    static let unavailableReason: Comment = "needs schemathesis for Python (make test-tools installs it)"

    /// What one run did.
    struct Outcome {
        /// Test cases (requests) schemathesis generated and sent.
        var cases: Int
        var exitStatus: Int32
        /// Its whole output, for the failure message.
        var output: String
    }

    /// Runs `st run` on `schemaURL` with the token, at most `maxExamples` cases per operation and phase, one request
    /// at a time, each bounded by `requestTimeout` seconds (a request that hangs fails the run), with a fixed seed so
    /// a failure can be replayed. The whole run is killed after `maxSeconds` (which throws). schemathesis's own
    /// `--max-time` is not a bound but a budget: its fuzzing and stateful phases repeat until it is spent.
    static func run(
        schemaURL: String, token: String, maxExamples: Int, maxSeconds: Int, requestTimeout: Int = 5, seed: Int = 23
    ) async throws -> Outcome {
        let python = try require_(Self.python)
        let arguments = [
            "-m", "schemathesis.cli", "run", schemaURL, "--header", "Authorization: Bearer \(token)",
            "--checks", checks.joined(separator: ","), "--max-examples", "\(maxExamples)", "--seed", "\(seed)",
            "--request-timeout", "\(requestTimeout)", "--workers", "1", "--generation-database", "none", "--no-color",
        ]
        let run = try await ToolRun.run(python, arguments, timeout: .seconds(maxSeconds).scaled)
        return Outcome(cases: cases(inSummary: run.stdout), exitStatus: run.status, output: run.stdout + run.stderr)
    }

    /// The number of test cases in schemathesis's summary (`Test cases:` then `1234 generated, …`); 0 if absent.
    static func cases(inSummary output: String) -> Int {
        guard let heading = output.range(of: "Test cases:") else { return 0 }
        let rest = output[heading.upperBound...].drop { $0 == " " || $0 == "\n" }
        return Int(rest.prefix { $0.isNumber }) ?? 0
    }
}
