#if os(Linux)
import Glibc
import Synchronization

/// The pid of the `pttd` this run started, for the signal handler (0 when none).
let serverPIDForSignals = Atomic<Int32>(0)

/// Ctrl-C or SIGTERM: kill pttd too, then exit.
func installSignalHandlers() {
    let handler: @convention(c) (Int32) -> Void = { signal in
        let pid = serverPIDForSignals.load(ordering: .relaxed)
        if pid > 0 { kill(pid, SIGKILL) }
        _exit(128 + signal)
    }
    signal(SIGINT, handler)
    signal(SIGTERM, handler)
    signal(SIGPIPE, SIG_IGN)
}
#endif
