#if os(Linux)
import Glibc
import Synchronization

/// The PostgreSQL backends a postgres-stop run has stopped (at most four), so that whatever happens (an error, a
/// signal) they are continued.
enum StoppedBackends {
    private static let slot0 = Atomic<Int32>(0)
    private static let slot1 = Atomic<Int32>(0)
    private static let slot2 = Atomic<Int32>(0)
    private static let slot3 = Atomic<Int32>(0)

    /// Notes `pid` (0: none) in `slot` (0...3).
    static func note(_ pid: Int32, slot: Int) {
        switch slot {
        case 0: slot0.store(pid, ordering: .relaxed)
        case 1: slot1.store(pid, ordering: .relaxed)
        case 2: slot2.store(pid, ordering: .relaxed)
        default: slot3.store(pid, ordering: .relaxed)
        }
    }

    /// SIGCONT to every noted backend, and forgets them (async-signal-safe: atomics and kill only).
    static func continueAll() {
        for pid in [
            slot0.exchange(0, ordering: .relaxed), slot1.exchange(0, ordering: .relaxed),
            slot2.exchange(0, ordering: .relaxed), slot3.exchange(0, ordering: .relaxed),
        ] where pid > 0 {
            kill(pid, SIGCONT)
        }
    }
}
#endif
