import Foundation

@testable import PTTCore

/// Shared fixtures for the channel ownership tests: channels, nodes and instants. Requesters are request numbers.
protocol OwnershipTesting {}

extension OwnershipTesting {
    typealias Ownership = ChannelOwnership<Int>
    typealias Action = ChannelOwnership<Int>.Action

    /// Two channels whose ids sort deck first.
    var deck: ChannelID { ChannelID(UUID(uuidString: "00000000-0000-0000-0000-00000000000d")!) }
    var bridge: ChannelID { ChannelID(UUID(uuidString: "00000000-0000-0000-0000-0000000000b0")!) }
    var alice: MemberID { MemberID("alice") }
    var bob: MemberID { MemberID("bob") }

    /// The three nodes of the examples: the machine under test is n1's.
    var everyNode: Set<String> { ["n1", "n2", "n3"] }

    /// The instant `ms` milliseconds after the origin.
    func at(_ ms: Int) -> PTTInstant { PTTInstant(nanoseconds: UInt64(ms) * 1_000_000) }

    /// n1 after a round at t=1000 ms that says n1 owns deck and n2 owns bridge.
    func settledNode(_ configuration: ChannelOwnershipConfiguration = .init()) -> Ownership {
        var ownership = Ownership(node: "n1", configuration: configuration)
        _ = ownership.roundRead(owners: [deck: "n1", bridge: "n2"], liveNodes: everyNode, now: at(1000))
        return ownership
    }
}
