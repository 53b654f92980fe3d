// The plane's benchmarks drive internal API (`@testable`): debug builds only, which is what `make bench-check`
// builds. A release build of every target still compiles (the gate then refuses to run).
#if DEBUG
import PTTProtocol

@testable import PTTServer

/// Allocations per join: a new device joins a channel that already has more members than `memberEventsUpTo` (64),
/// one join at a time, so each is a write of its own. Counted for each: the plane's `receive`, the plan, the
/// hand-over to the storage thread, the SQLite transaction there (in memory: no disk), the hop back, the apply to
/// the directory, the `joined` answer and the `member-joined` sent to the 64 members who asked for them, on the
/// plane's thread and the storage thread alike.
///
/// With `directoryMembers`, the storage holds that many memberships of other channels already, and the figure is
/// the bytes asked for per join: a join whose planning copied the whole directory would ask for megabytes.
struct JoinBench {
    /// Members in the channel before the counted joins (the first joins warm up, and are not counted).
    var warmUp = 100
    var joins = 200
    /// Memberships of other channels in the directory (0: none; the bytes per join are gated then).
    var directoryMembers = 0

    func run() throws -> GateMetric {
        let reading = try PlaneRig.measure(
            warmUp: warmUp, counted: joins, directoryMembers: directoryMembers, tallied: "ptt_joins_total",
            mismatch: { "the plane counted \($0) joins for \($1) asked" }
        ) { rig in
            let sessions = try (0..<(warmUp + joins)).map { try rig.connect(device: "device-\($0)") }
            return { range in
                for index in range {
                    try rig.exchange([(.join(Join(id: index, channel: "deck")), sessions[index])])
                }
            }
        }
        let operation =
            "one join of a new device, stored and answered, in a channel of \(warmUp) to \(warmUp + joins) members"
        if directoryMembers > 0 {
            return GateMetric(
                name: directoryMembers == 20_000
                    ? "plane.bytesPerJoin.directory20000" : "plane.bytesPerJoin.directory@\(directoryMembers)",
                reading: reading, operations: joins,
                operation: operation + ", with \(directoryMembers) memberships in other channels", unit: .bytes)
        }
        return GateMetric(
            name: warmUp == 100 ? "plane.allocationsPerJoin" : "plane.allocationsPerJoin@\(warmUp)", reading: reading,
            operations: joins, operation: operation)
    }
}
#endif
