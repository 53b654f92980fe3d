import PTTCore

/// A broadcast as the relay carries it (``RelayChange/broadcast(_:_:grace:)``): the sender's packets in its own
/// channel also go, packet for packet, to the members of each target channel, on their usual streams, as that
/// channel's burst (kept, recorded, caught up with like any other).
public struct RelayBroadcast: Sendable, Equatable {
    /// The sender's membership, in the channel the change names.
    public var sender: MemberID
    /// The other channels, in the broadcast's order.
    public var targets: [RelayBroadcastTarget]

    public init(sender: MemberID, targets: [RelayBroadcastTarget]) {
        self.sender = sender
        self.targets = targets
    }
}

/// One channel a broadcast reaches besides the sender's.
public struct RelayBroadcastTarget: Sendable, Equatable {
    public var channel: ChannelID
    /// Memberships that get no copy here: their device gets one through a channel earlier in the broadcast.
    public var skip: Set<MemberID>

    public init(channel: ChannelID, skip: Set<MemberID> = []) {
        self.channel = channel
        self.skip = skip
    }
}

/// A broadcast running on the relay: the sender's stand-in in each target channel (the same SSRC, never sent to),
/// which holds that channel's floor there, and when its end's grace is over.
final class ActiveRelayBroadcast {
    let sender: MemberID
    let senderSSRC: UInt32
    private(set) var targets: [(stand: RelayMember, skip: Set<MemberID>)]
    /// Set when the broadcast ends: its targets are released, and it goes after the grace.
    var ending = false

    init(sender: MemberID, senderSSRC: UInt32, targets: [(stand: RelayMember, skip: Set<MemberID>)]) {
        self.sender = sender
        self.senderSSRC = senderSSRC
        self.targets = targets
    }

    /// Each target's skipped memberships as `broadcast` has them now; a target it no longer names keeps its own
    /// (its floor left the broadcast, so nothing is sent there).
    func serve(_ broadcast: RelayBroadcast) {
        for index in targets.indices {
            let channel = targets[index].stand.channel
            if let target = broadcast.targets.first(where: { $0.channel == channel }) {
                targets[index].skip = target.skip
            }
        }
    }
}
