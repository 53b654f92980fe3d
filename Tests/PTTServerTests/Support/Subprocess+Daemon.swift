import Foundation
import PTTProtocol
import TestSupport

extension Subprocess {
    /// Starts `pttd` on free loopback ports (TLS unless `arguments` say otherwise) and waits until it has
    /// written runtime.json.
    ///
    /// With `user` (a uid; when the tests run as root), pttd runs as that user through `setpriv`, as the systemd
    /// unit runs it: without any privilege.
    static func startDaemon(
        data: String, arguments: [String] = [], user: UInt32? = nil
    ) async throws -> (Subprocess, RuntimeInfo) {
        let runtime = data + "/runtime.json"
        try? FileManager.default.removeItem(atPath: runtime)
        let flags = [
            "--data", data, "--control-host", "127.0.0.1", "--control-port", "0", "--admin-port", "0",
            "--web-host", "127.0.0.1", "--web-port", "0",
            "--media-port", "0",
        ]
        let daemon =
            if let user {
                try Subprocess(
                    "/usr/bin/setpriv",
                    ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", try Executables.reachable("pttd")] + flags
                        + arguments, environment: sanitizerReportsToStandardError())
            } else {
                try Subprocess("pttd", flags + arguments)
            }
        // Scaled: under ThreadSanitizer, with the whole pass running, a sanitized pttd once took 20 s to log its
        // first line, and six starts missed an unscaled 30 s.
        let deadline = ContinuousClock.now + Duration.seconds(30).scaled
        while ContinuousClock.now < deadline {
            if let bytes = FileManager.default.contents(atPath: runtime),
                let info = try? JSONDecoder().decode(RuntimeInfo.self, from: bytes),
                info.pid == daemon.process.processIdentifier
            {
                return (daemon, info)
            }
            guard daemon.process.isRunning else { throw TestFailure("pttd exited: \(daemon.standardError)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        daemon.signal(SIGKILL)
        throw TestFailure("pttd did not write runtime.json: \(daemon.standardError)")
    }

    /// The resident set size of the process, in bytes (Linux: VmRSS in /proc/PID/status).
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }
}
