import Foundation

/// The built executables (`pttd`, `pttctl`, `ptt`) next to the test bundle, run as a user would.
public enum Executables {
    public static var directory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if url.pathExtension == "xctest" { url.deleteLastPathComponent() }
        return url
    }

    public static func path(_ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure(
                "\(path) is missing: build every product first (`swift build --build-tests`, as `make test` does)")
        }
        return path
    }
}

/// The sanitizers' options for a process of another user, which can neither write into the sanitized build's report
/// directory nor read a clone in a private directory (the sanitizer runtime then exits at start): without
/// `log_path`, its reports go to its standard error, where the test that started it looks for them; suppression
/// files are copied where any user can read them.
public func sanitizerReportsToStandardError() -> [String: String] {
    var environment: [String: String] = [:]
    for name in ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS"] {
        guard let options = ProcessInfo.processInfo.environment[name] else { continue }
        environment[name] = options.split(separator: " ").compactMap { option -> String? in
            if option.hasPrefix("log_path=") { return nil }
            guard option.hasPrefix("suppressions=") else { return String(option) }
            let source = String(option.dropFirst("suppressions=".count))
            let directory = TestDirectory.make()
            chmod(directory, 0o755)
            let copy = directory + "/" + (source as NSString).lastPathComponent
            guard (try? FileManager.default.copyItem(atPath: source, toPath: copy)) != nil else { return nil }
            chmod(copy, 0o644)
            return "suppressions=" + copy
        }.joined(separator: " ")
    }
    return environment
}

extension Executables {
    /// `name` where any user may run it: a clone in a private directory (`mktemp -d`, 0700) is out of reach of
    /// an unprivileged user, so the binary is linked (or copied) into a directory of mode 0755.
    public static func reachable(_ name: String) throws -> String {
        let directory = TestDirectory.make()
        chmod(directory, 0o755)
        let target = directory + "/" + name
        let source = try path(name)
        if link(source, target) != 0 { try FileManager.default.copyItem(atPath: source, toPath: target) }
        return target
    }
}

/// A child process whose standard output is read line by line.
public final class Subprocess: @unchecked Sendable {
    // @unchecked: `lines` and `finished` are guarded by `lock`.
    public let process: ChildProcess
    private let lock = NSLock()
    private var lines: [String] = []
    private var partial = Data()
    private var errorText = Data()
    /// Pipes that reached end of file: output read after the exit is only complete once both have.
    private var endedPipes = 0

    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let path = executable.hasPrefix("/") ? executable : try Executables.path(executable)
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        // Children get none of them but their own ends as 1 and 2 (`ChildProcess` closes the rest in the child).
        guard pipe(&outputPipe) == 0 else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&errorPipe) == 0 else {
            close(outputPipe[0])
            close(outputPipe[1])
            throw TestFailure("pipe: \(String(cString: strerror(errno)))")
        }
        do {
            process = try ChildProcess(
                executable: path, arguments: arguments,
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, output: outputPipe[1],
                errors: errorPipe[1])
        } catch {
            for fd in outputPipe + errorPipe { close(fd) }
            throw error
        }
        // The child has its own copies of the write ends: the readers see end of file when it (and its children)
        // close them.
        close(outputPipe[1])
        close(errorPipe[1])
        let output = FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true)
        let errors = FileHandle(fileDescriptor: errorPipe[0], closeOnDealloc: true)
        // Each pipe is read to its end by a blocking loop on a thread of its own, not with `readabilityHandler`:
        // tearing down that handler's dispatch read source races libdispatch's epoll bookkeeping on Linux, which
        // crashed a test process once in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch #949). The loop
        // keeps its FileHandle (and so its descriptor) until end of file.
        Self.drain(output) { [weak self] data in
            self?.received(data)
        } ended: { [weak self] in
            self?.pipeEnded()
        }
        Self.drain(errors) { [weak self] data in
            guard let self else { return }
            self.lock.lock()
            self.errorText.append(data)
            self.lock.unlock()
        } ended: { [weak self] in
            self?.pipeEnded()
        }
    }

    /// Reads `handle` until end of file on a new thread, handing each chunk to `received`, then calls `ended`.
    private static func drain(
        _ handle: FileHandle, _ received: @escaping @Sendable (Data) -> Void, ended: @escaping @Sendable () -> Void
    ) {
        Thread.detachNewThread {
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    received(Data(buffer[0..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            withExtendedLifetime(handle) {}
            ended()
        }
    }

    private func pipeEnded() {
        lock.lock()
        defer { lock.unlock() }
        endedPipes += 1
    }
    private var bothPipesEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return endedPipes == 2
    }

    private func received(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        partial.append(data)
        while let newline = partial.firstIndex(of: 0x0A) {
            lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
            partial.removeSubrange(partial.startIndex...newline)
        }
    }

    public var standardError: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errorText, as: UTF8.self)
    }
    public var outputLines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// Waits until a line of standard output satisfies `predicate`, the process exits, or `timeout` passes.
    public func waitForLine(timeout: Duration = .seconds(20), _ predicate: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout.scaled
        while ContinuousClock.now < deadline {
            if let line = outputLines.first(where: predicate) { return line }
            if !process.isRunning {
                _ = try await waitForExit()
                if let line = outputLines.first(where: predicate) { return line }
                throw TestFailure(
                    "\(process.executableURL?.lastPathComponent ?? "process") exited (\(process.terminationStatus)) before the expected output; stderr: \(standardError)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("timed out waiting for output; got \(outputLines); stderr: \(standardError)")
    }

    /// Waits for the process to exit within `timeout`, then returns its status.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout.scaled
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                throw TestFailure("process did not exit within \(timeout.scaled); stderr: \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        // The exit can be seen before the readers have drained the pipes: wait for their end of file (a
        // grandchild that kept them open would hold them forever, so for two seconds at most).
        let drained = ContinuousClock.now + .seconds(2)
        while !bothPipesEnded, ContinuousClock.now < drained { try await Task.sleep(for: .milliseconds(5)) }
        return process.terminationStatus
    }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits until standard error contains `text` (tools such as tshark say there when they are ready).
    public func waitForStandardError(containing text: String, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout.scaled
        while !standardError.contains(text) {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("timed out waiting for '\(text)' on stderr: \(standardError)")
            }
            guard process.isRunning else {
                _ = try await waitForExit()
                if standardError.contains(text) { return }
                throw TestFailure("process exited before saying '\(text)': \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs a command to completion and returns its standard output; throws if it fails.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) async throws -> String {
        let child = try Subprocess(executable, arguments, environment: environment)
        let status = try await child.waitForExit(timeout: timeout)
        guard status == 0 else {
            throw TestFailure(
                "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(child.standardError)")
        }
        return child.outputLines.joined(separator: "\n")
    }
}
