import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`: every test starts its children with this, never with Foundation's
/// `Process`. On Linux, `Process.run()` lists /proc/self/fd with a copy of each entry's whole 256-byte name, which
/// reads past the end of glibc's directory buffer when an entry ends it and the next page is unmapped: the test
/// process crashes (SIGSEGV in `findMaximumOpenFromProcSelfFD`; swift-corelibs-foundation PR 5472, after the 6.3.1
/// toolchain). It did so on a fresh clone (2026-11-26) and in a main pass here (2026-11-29, in `ToolRun`), the more
/// often the more descriptors the tests have open. Here a thread of its own waits for the exit.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `status` and `waiters` are guarded by `lock`.
    public let executableURL: URL?
    public let processIdentifier: Int32
    private let lock = NSLock()
    private var status: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []

    /// Starts `executable` with `arguments` and `environment`; its standard output and error are `output` and
    /// `errors` (its input is /dev/null), and it inherits no other descriptor.
    public init(
        executable: String, arguments: [String], environment: [String: String], output: Int32, errors: Int32
    ) throws {
        executableURL = URL(fileURLWithPath: executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        Self.closeOthers(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked and SIGPIPE at its default, whatever this thread had.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw TestFailure("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
        let child = pid
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1, errno == EINTR {}
            // As Foundation reports it: the exit code, or the number of the signal that ended it.
            let exited = raw & 0x7F == 0
            let code = exited ? (raw >> 8) & 0xFF : raw & 0x7F
            lock.lock()
            status = code
            let waiting = waiters
            waiters = []
            lock.unlock()
            for waiter in waiting { waiter.resume(returning: code) }
        }
    }

    /// The child closes every descriptor above 2 before it runs (glibc's `posix_spawn_file_actions_addclosefrom_np`,
    /// found at run time: Swift's Glibc module does not declare it), else each one this process has open now.
    private static func closeOthers(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return status == nil
    }

    /// The exit code, or the signal that ended it; -1 while it runs.
    public var terminationStatus: Int32 {
        lock.lock()
        defer { lock.unlock() }
        return status ?? -1
    }

    public func terminate() { kill(processIdentifier, SIGTERM) }

    /// Suspends until the child has exited, without holding a thread; returns ``terminationStatus``.
    public func exited() async -> Int32 {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let status {
                lock.unlock()
                return continuation.resume(returning: status)
            }
            waiters.append(continuation)
            lock.unlock()
        }
    }

    /// Blocks until the child has exited (for cleanup code that is not async).
    public func waitUntilExit() {
        while isRunning { usleep(5_000) }
    }
}
