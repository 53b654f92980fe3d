#if os(Linux)
import Glibc
import Synchronization

/// The pid of the `pttd` this run started, for the signal handler (0 when none).
let serverPIDForSignals = Atomic<Int32>(0)

/// Ctrl-C or SIGTERM, in every command: continue any PostgreSQL backend the run stopped (`floor-latency`'s
/// postgres-stop), kill pttd and the private PostgreSQL (`floor-latency`'s cluster scenarios) when the run started
/// them, then exit. What a command never started is 0 here, and left alone.
func installSignalHandlers() {
    let handler: @convention(c) (Int32) -> Void = { signal in
        StoppedBackends.continueAll()
        let server = serverPIDForSignals.load(ordering: .relaxed)
        if server > 0 { kill(server, SIGKILL) }
        let postgres = postgresPIDForSignals.load(ordering: .relaxed)
        if postgres > 0 { kill(postgres, SIGQUIT) }
        _exit(128 + signal)
    }
    signal(SIGINT, handler)
    signal(SIGTERM, handler)
    signal(SIGPIPE, SIG_IGN)
}
#endif
