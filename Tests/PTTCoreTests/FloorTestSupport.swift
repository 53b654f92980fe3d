@testable import PTTCore

/// Shared fixtures for the floor control tests; adopt it in a suite to get the members and helpers.
protocol FloorTesting {}

extension FloorTesting {
    var alice: MemberID { MemberID("alice") }
    var bob: MemberID { MemberID("bob") }
    var carol: MemberID { MemberID("carol") }
    var dave: MemberID { MemberID("dave") }
    var erin: MemberID { MemberID("erin") }
    var frank: MemberID { MemberID("frank") }
    var stranger: MemberID { MemberID("stranger") }

    /// The default T2.
    var fullTalk: Duration { .seconds(30) }

    /// The instant `ms` milliseconds after the origin.
    func at(_ ms: Int) -> PTTInstant { PTTInstant(nanoseconds: UInt64(ms) * 1_000_000) }

    func candidate(_ member: MemberID, _ priority: Int = 0, receiveOnly: Bool = false) -> FloorCandidate {
        FloorCandidate(member: member, priority: priority, receiveOnly: receiveOnly)
    }

    /// Nobody holds the floor.
    func idleFloor(_ configuration: FloorConfiguration = .init()) -> FloorControl {
        FloorControl(configuration: configuration)
    }

    /// Alice (priority 1) was granted the floor at t=1000 ms; T1 due at 3000, T2 at 31000.
    func takenFloor(_ configuration: FloorConfiguration = .init()) -> FloorControl {
        var floor = FloorControl(configuration: configuration)
        _ = floor.request(candidate(alice, 1), memberCount: 5, now: at(1000))
        return floor
    }

    /// Alice (1) holds since t=1000; queue is carol (1), bob (0), dave (0).
    func queuedFloor(_ configuration: FloorConfiguration = .init()) -> FloorControl {
        var floor = takenFloor(configuration)
        _ = floor.request(candidate(bob, 0), memberCount: 5, now: at(1100))
        _ = floor.request(candidate(carol, 1), memberCount: 5, now: at(1200))
        _ = floor.request(candidate(dave, 0), memberCount: 5, now: at(1300))
        return floor
    }

    /// Alice (1) holds since t=1000; bob (0) queued at 1100; carol (3) asked at 1500,
    /// so the pre-emption of alice by carol is pending until t=2500. Queue is carol, bob.
    func preemptingFloor(_ configuration: FloorConfiguration = .init()) -> FloorControl {
        var floor = takenFloor(configuration)
        _ = floor.request(candidate(bob, 0), memberCount: 5, now: at(1100))
        _ = floor.request(candidate(carol, 3), memberCount: 5, now: at(1500))
        return floor
    }
}
