import Foundation
import Synchronization

/// What a tool printed and how it ended.
public struct ToolResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs an outside tool (ffmpeg, opusenc, openssl) to completion without holding a thread.
///
/// Tests run in parallel on Swift's cooperative pool, which has one thread per core: a test that
/// waits for a child process with `waitUntilExit()` (or spins on a socket while it runs) holds one of
/// them, and on a two-core machine two such tests stall every other test of the process, whose
/// bounded waits then time out for nothing. The wait here suspends instead; the process's end is
/// reported by Foundation's termination handler.
public enum ToolRun {
    /// Runs `tool` with `arguments`; output is captured through files (no pipe to fill up). A tool still
    /// running after `timeout` is killed and the call throws.
    public static func run(
        _ tool: String, _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws -> ToolResult {
        let directory = FileManager.default.temporaryDirectory
        let outURL = directory.appendingPathComponent("tool-\(UUID().uuidString).out")
        let errURL = directory.appendingPathComponent("tool-\(UUID().uuidString).err")
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let watch = Watch()
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in
                watch.state.withLock { $0.exited = true }
                continuation.resume(returning: process.terminationStatus)
            }
            do { try process.run() } catch {
                process.terminationHandler = nil
                return continuation.resume(throwing: error)
            }
            let pid = process.processIdentifier
            Task.detached {
                try? await Task.sleep(for: timeout)
                watch.state.withLock { state in
                    guard !state.exited else { return }
                    state.timedOut = true
                    kill(pid, SIGKILL)
                }
            }
        }
        if watch.state.withLock({ $0.timedOut }) {
            throw ToolRunError(
                description:
                    "\(tool) \(arguments.joined(separator: " ")) was still running after \(timeout) and was killed")
        }
        return ToolResult(
            status: status,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

/// Whether the child has exited, and whether it was killed for running too long.
private final class Watch: Sendable {
    let state = Mutex<(exited: Bool, timedOut: Bool)>((false, false))
}

/// A tool could not be run to completion.
public struct ToolRunError: Error, CustomStringConvertible {
    public var description: String
}
