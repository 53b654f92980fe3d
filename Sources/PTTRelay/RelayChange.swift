import PTTCore

/// One change the control plane tells the relay about: what changed, never the whole channel again, so
/// a join costs the same in a channel of 10 members and of 1000.
public enum RelayChange: Sendable, Equatable {
    /// A member joined a channel, or its media parameters changed (the same member id again).
    case join(RelayMemberConfig)
    /// A membership ended.
    case leave(MemberID)
    /// The member allowed to send on a channel (nil: the floor is idle).
    case floor(ChannelID, holder: MemberID?)
    /// The holder let go of the floor (a `floor-release`): it is idle, and for `grace` (the floor's
    /// ``FloorConfiguration/releaseGrace``) the member's late packets are still forwarded, without asking for the floor.
    case released(ChannelID, by: MemberID, grace: Duration)
    /// Members woken for the burst that the channel's floor holder (as last told) starts: they may catch up with it.
    case woken(ChannelID, [MemberID])
    /// The burst the channel's floor holder (as last told) starts is recorded, under `key`.
    case record(ChannelID, key: UInt64)
    /// Plays a recorded burst to one member (real time, on its stream); live audio to it cancels it.
    case replay(MemberID, burst: Int64, speakerSSRC: UInt32, packets: [RecordedPacket])
    /// A channel and every membership in it are gone.
    case removeChannel(ChannelID)
    /// A channel's links to the other nodes of a cluster, all of them (nil: none, the channel is this node's alone).
    case links(ChannelID, RelayChannelLinks?)
    /// A broadcast from a channel (its floor holder's audio) starts, or ends (nil; its channels' floors are released
    /// with `grace`).
    case broadcast(ChannelID, RelayBroadcast?, grace: Duration)
    /// A device's scan list (``RelayScans``; `device` is any key unique per device): its scanned memberships, highest
    /// priority first (empty: it stops scanning); `catchUp`: a channel heard again resumes from the first packet missed.
    case scan(device: String, [MemberID], catchUp: Bool)
}

/// One member as the relay sees it.
public struct RelayMemberConfig: Sendable, Equatable {
    public var id: MemberID
    public var channel: ChannelID
    /// The SSRC the member sends with.
    public var ssrc: UInt32
    /// The SSRC of the one stream the relay sends to the member.
    public var listenSSRC: UInt32
    /// The member's SRTP master key and salt (unused when the relay runs without media security).
    public var key: [UInt8]
    /// The SRTP suite of the member's streams, both ways.
    public var suite: MediaSuite
    public var receiveOnly: Bool

    public init(
        id: MemberID, channel: ChannelID, ssrc: UInt32, listenSSRC: UInt32, key: [UInt8], suite: MediaSuite = .default,
        receiveOnly: Bool
    ) {
        self.suite = suite
        self.id = id
        self.channel = channel
        self.ssrc = ssrc
        self.listenSSRC = listenSSRC
        self.key = key
        self.receiveOnly = receiveOnly
    }
}

/// What the relay reports back to the control plane (rate-limited per member).
public enum RelayReport: Sendable {
    /// An authenticated packet arrived from a member: media (`talking`) or a keep-alive; with the number of
    /// its packets dropped so far because it did not hold the floor.
    case heard(MemberID, channel: ChannelID, talking: Bool, droppedNotHolder: Int)
    /// A recorded burst replayed to one member ended: played to its end, or cancelled (live audio, leaving).
    case replayEnded(MemberID, channel: ChannelID, burst: Int64, outcome: PlaybackOutcome)
    /// A scanning device (named by the first membership of its scan list) now hears `hearing`'s burst, or none.
    case scanSwitched(MemberID, hearing: ChannelID?)
}

/// One packet of a recorded burst: its Opus payload and RTP timestamp (48 kHz; any origin).
public struct RecordedPacket: Sendable, Equatable {
    public var payload: [UInt8]
    public var timestamp: UInt32

    public init(payload: [UInt8], timestamp: UInt32) {
        self.payload = payload
        self.timestamp = timestamp
    }
}

/// What the relay hands to the recorder: a recorded burst's packets as they come (a batch every quarter second),
/// and its end.
public enum RecordingHandOff: Sendable {
    /// Packets of the recording `key`, in order; `lost` packets before them were dropped by a bound first.
    case packets(key: UInt64, [RecordedPacket], lost: Int)
    /// The burst ended: nothing more comes for `key`.
    case ended(key: UInt64)
}

extension RelayChange {
    /// The first change that leaves a floor idle with no later grant in that channel among `pending`.
    static func deferredRelease(in pending: [RelayChange]) -> Int? {
        for (index, change) in pending.enumerated() {
            let channel: ChannelID
            switch change {
            case .floor(let idle, holder: nil), .released(let idle, _, _): channel = idle
            default: continue
            }
            let granted = pending[(index + 1)...].contains {
                if case .floor(channel, holder: .some) = $0 { true } else { false }
            }
            if !granted { return index }
        }
        return nil
    }
}
