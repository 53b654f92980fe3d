// The plane's benchmarks drive internal API (`@testable`): debug builds only, which is what `make bench-check`
// builds. A release build of every target still compiles (the gate then refuses to run).
#if DEBUG
@testable import PTTServer

extension PlaneRig {
    /// What the plane's benchmarks (``JoinBench``, ``FloorBench``) share: a fresh rig, the benchmark's `setUp` on
    /// it, which returns how to run operations `range` (numbered from 0), then `warmUp` operations not counted and
    /// `counted` counted (in a directory of `directoryMembers` other memberships), and a check that the server's counter `series` says every one of them happened (else
    /// `mismatch(what it says, how many were run)` is the failure). Returns the counted operations' reading.
    static func measure(
        warmUp: Int, counted: Int, directoryMembers: Int = 0, tallied series: String,
        mismatch: (_ tallied: Double, _ run: Int) -> String,
        setUp: (PlaneRig) throws -> (_ range: Range<Int>) throws -> Void
    ) throws -> AllocationReading {
        let rig = try PlaneRig(directoryMembers: directoryMembers)
        defer { rig.shutdown() }
        let operate = try setUp(rig)
        let reading = try AllocationMeter.measure(warmUp: warmUp, counted: counted, operate)
        let tallied = rig.metric(series)
        guard tallied == Double(warmUp + counted) else { throw GateFailure(mismatch(tallied, warmUp + counted)) }
        return reading
    }
}
#endif
