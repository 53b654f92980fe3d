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
struct JoinBench {
    /// Members in the channel before the counted joins (the first joins warm up, and are not counted).
    var warmUp = 100
    var joins = 200

    func run() throws -> GateMetric {
        let rig = try PlaneRig()
        defer { rig.shutdown() }
        let sessions = try (0..<(warmUp + joins)).map { try rig.connect(device: "device-\($0)") }
        func join(_ index: Int) throws {
            try rig.exchange([(.join(Join(id: index, channel: "deck")), sessions[index])])
        }
        _ = try AllocationMeter.measure { for index in 0..<warmUp { try join(index) } }
        let reading = try AllocationMeter.measure { for index in warmUp..<(warmUp + joins) { try join(index) } }
        let joined = rig.metric("ptt_joins_total")
        guard joined == Double(warmUp + joins) else {
            throw GateFailure("the plane counted \(joined) joins for \(warmUp + joins) asked")
        }
        return GateMetric(
            name: warmUp == 100 ? "plane.allocationsPerJoin" : "plane.allocationsPerJoin@\(warmUp)", reading: reading,
            operations: joins,
            operation:
                "one join of a new device, stored and answered, in a channel of \(warmUp) to \(warmUp + joins) members")
    }
}
#endif
