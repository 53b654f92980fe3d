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
/// bounded waits then time out for nothing. The wait here suspends instead; the tool is a
/// ``ChildProcess``, whose own thread reports its end.
public enum ToolRun {
    /// Runs `tool` with `arguments`; output is captured through files (no pipe to fill up). A tool still
    /// running after `timeout` is killed and the call throws.
    public static func run(
        _ tool: String, _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws -> ToolResult {
        let output = CapturedOutput()
        defer { output.remove() }
        let child = try output.start(tool, arguments)
        let watch = Watch()
        let pid = child.processIdentifier
        let killer = Task.detached {
            try await Task.sleep(for: timeout)
            watch.state.withLock { state in
                guard !state.exited else { return }
                state.timedOut = true
                kill(pid, SIGKILL)
            }
        }
        let status = await child.exited()
        watch.state.withLock { $0.exited = true }
        killer.cancel()
        if watch.state.withLock({ $0.timedOut }) {
            throw ToolRunError(
                description:
                    "\(tool) \(arguments.joined(separator: " ")) was still running after \(timeout) and was killed")
        }
        return output.result(status)
    }

    /// Runs `tool` with `arguments` to its end, blocking the calling thread: for the quick checks made outside
    /// async code (is a GStreamer element there, can this Python import that).
    public static func runBlocking(_ tool: String, _ arguments: [String]) throws -> ToolResult {
        let output = CapturedOutput()
        defer { output.remove() }
        let child = try output.start(tool, arguments)
        child.waitUntilExit()
        return output.result(child.terminationStatus)
    }
}

/// Two files a tool writes its standard output and error to.
private struct CapturedOutput {
    let outPath: String
    let errPath: String

    init() {
        let directory = FileManager.default.temporaryDirectory.path
        let name = UUID().uuidString
        outPath = "\(directory)/tool-\(name).out"
        errPath = "\(directory)/tool-\(name).err"
    }

    /// Starts `tool` with this process's environment, writing to the two files.
    func start(_ tool: String, _ arguments: [String]) throws -> ChildProcess {
        let out = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            if out >= 0 { close(out) }
            if err >= 0 { close(err) }
        }
        guard out >= 0, err >= 0 else {
            throw ToolRunError(description: "cannot create \(outPath): \(String(cString: strerror(errno)))")
        }
        return try ChildProcess(
            executable: tool, arguments: arguments, environment: ProcessInfo.processInfo.environment, output: out,
            errors: err)
    }

    func result(_ status: Int32) -> ToolResult {
        ToolResult(
            status: status,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    func remove() {
        unlink(outPath)
        unlink(errPath)
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
