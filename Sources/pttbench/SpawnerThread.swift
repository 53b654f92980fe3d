#if os(Linux)
import Foundation
import Glibc
import Synchronization

/// A thread that starts a process and then stays alive until `finish()`, so that a parent-death signal set
/// in the child fires only when pttbench itself is gone.
final class SpawnerThread: @unchecked Sendable {
    // @unchecked: the semaphores synchronise; `error` is written before `started` is signalled.
    private let started = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var error: Error?

    func spawn(_ process: Process) throws {
        let thread = Thread { [self] in
            unblockSignalsOfThisThread()
            do { try process.run() } catch { self.error = error }
            started.signal()
            _ = done.wait(timeout: .now() + .seconds(86_400))
        }
        thread.name = "pttbench-spawn"
        thread.start()
        started.wait()
        if let error { throw error }
    }

    func finish() { done.signal() }
}

/// Empties the calling thread's signal mask. Foundation's `Process` passes the spawning thread's mask on to the
/// child, and threads made from a Dispatch worker block almost every signal (SIGTERM included): a child started
/// from one ignores `kill PID` until it unblocks the signal itself (the C reference relay never does).
func unblockSignalsOfThisThread() {
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
}

/// Starts `process` from a short-lived thread with no blocked signals (see `unblockSignalsOfThisThread`).
func runWithDefaultSignalMask(_ process: Process) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<Error?>(nil)
    let thread = Thread {
        unblockSignalsOfThisThread()
        do { try process.run() } catch { failure.withLock { $0 = error } }
        done.signal()
    }
    thread.start()
    done.wait()
    if let error = failure.withLock({ $0 }) { throw error }
}
#endif
