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
        let rig = try PlaneRig()
        defer { rig.shutdown() }
        let speaker = try rig.connect(device: "speaker")
        let listener = try rig.connect(device: "listener")
        try rig.exchange([
            (.join(Join(id: 1, channel: "bridge")), speaker), (.join(Join(id: 1, channel: "bridge")), listener),
        ])
        /// `count` rounds in one task on the plane's loop: a floor request needs no storage, so each is answered
        /// within it, and no loop turn or thread wake-up (whose cost depends on timing) falls between two rounds.
        func play(_ count: Int, firstID: Int) throws {
            try rig.loop.submit {
                for round in 0..<count {
                    let id = firstID + 2 * round
                    rig.plane.receive(.floorRequest(FloorCommand(id: id, channel: "bridge")), from: speaker)
                    rig.plane.receive(.floorRelease(FloorCommand(id: id + 1, channel: "bridge")), from: speaker)
                    rig.flushConnections()
                }
            }.wait()
        }
        _ = try AllocationMeter.measure { try play(warmUp, firstID: 2) }
        let reading = try AllocationMeter.measure { try play(rounds, firstID: 2 + 2 * warmUp) }
        let grants = rig.metric("ptt_floor_grants_total")
        guard grants == Double(warmUp + rounds) else {
            throw GateFailure("the plane granted \(grants) floors for \(warmUp + rounds) requests on an idle floor")
        }
        return GateMetric(
            name: "plane.allocationsPerFloorRequest", reading: reading, operations: rounds,
            operation: "floor-request granted on an idle floor, then floor-release, in a channel of 2")
    }
}
#endif
