// The plane's benchmarks drive internal API (`@testable`): debug builds only, which is what `make bench-check`
// builds. A release build of every target still compiles (the gate then refuses to run).
#if DEBUG
import PTTProtocol

@testable import PTTServer

/// Allocations per floor request: `floor-request` on an idle floor (granted: `floor-granted` to the speaker,
/// `floor-taken` to the channel, the relay told, the wake policy asked, the T1/T2 timer armed) then `floor-release`
/// (`floor-idle`, the timer cancelled), through the plane, in a channel of two members. One operation is the pair.
struct FloorBench {
    var warmUp = 100
    var rounds = 1000

    func run() throws -> GateMetric {
        let reading = try PlaneRig.measure(
            warmUp: warmUp, counted: rounds, tallied: "ptt_floor_grants_total",
            mismatch: { "the plane granted \($0) floors for \($1) requests on an idle floor" }
        ) { rig in
            let speaker = try rig.connect(device: "speaker")
            let listener = try rig.connect(device: "listener")
            try rig.exchange([
                (.join(Join(id: 1, channel: "bridge")), speaker), (.join(Join(id: 1, channel: "bridge")), listener),
            ])
            // Rounds `range` in one task on the plane's loop: a floor request needs no storage, so each is answered
            // within it, and no loop turn or thread wake-up (whose cost depends on timing) falls between two rounds.
            return { range in
                try rig.loop.submit {
                    for round in range {
                        let id = 2 + 2 * round
                        rig.plane.receive(.floorRequest(FloorCommand(id: id, channel: "bridge")), from: speaker)
                        rig.plane.receive(.floorRelease(FloorCommand(id: id + 1, channel: "bridge")), from: speaker)
                        rig.flushConnections()
                    }
                }.wait()
            }
        }
        return GateMetric(
            name: "plane.allocationsPerFloorRequest", reading: reading, operations: rounds,
            operation: "floor-request granted on an idle floor, then floor-release, in a channel of 2")
    }
}
#endif
