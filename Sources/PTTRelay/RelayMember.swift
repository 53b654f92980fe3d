import NIOCore
import PTTCore

/// One member on the relay: where its audio goes, and how it is protected.
final class RelayMember {
    /// Its parameters. A broadcast's stand-in in a target channel (``ActiveRelayBroadcast``) is the sender's with
    /// that channel.
    let config: RelayMemberConfig
    let crypto: MemberCrypto
    /// Learned from the member's first authenticated packet; may move on a later authenticated packet.
    var address: SocketAddress? {
        didSet { rawAddress = address.map(RawSocketAddress.init) ?? RawSocketAddress() }
    }
    /// `address` as the kernel takes it, for sending.
    private(set) var rawAddress = RawSocketAddress()
    var lastHeard: NIODeadline?
    var lastReported: NIODeadline?
    var lastTalkReported: NIODeadline?
    /// Packets from this member dropped because it did not hold the floor.
    var droppedNotHolder = 0
    /// The next sequence number of this member's listening stream (continuous across speakers).
    var nextSequence: UInt16
    /// Kept packets going out to this member (a catch-up or a replay), if any: live copies skip it meanwhile.
    var playback: Playback? { didSet { skipsLive = playback != nil || scanElsewhere } }
    /// Whether `playback` is set (reading `playback` would retain its buffer).
    var isPlaying: Bool { playback != nil }
    /// A scanning device hears another of its channels now (``RelayScans``): live copies skip this membership.
    var scanElsewhere = false { didSet { skipsLive = playback != nil || scanElsewhere } }
    /// Whether live copies skip it (a playback, or a scan that hears another channel): the one flag the fan-out reads
    /// per listener.
    private(set) var skipsLive = false
    /// The floor generation of its channel this member was last woken for (0: never).
    var wokenGeneration: UInt64 = 0

    var channel: ChannelID { config.channel }
    /// The peer node, when this is a channel's link to another node of a cluster rather than a member.
    var linkPeer: String?

    init(config: RelayMemberConfig, crypto: MemberCrypto) {
        self.config = config
        self.crypto = crypto
        self.nextSequence = UInt16(truncatingIfNeeded: config.listenSSRC >> 7)
    }

    /// A member with new parameters that keeps what the relay learned about this one (its address and
    /// its listening stream's position).
    func replaced(by config: RelayMemberConfig, crypto: MemberCrypto) -> RelayMember {
        let fresh = RelayMember(config: config, crypto: crypto)
        fresh.address = address
        fresh.lastHeard = lastHeard
        fresh.nextSequence = nextSequence
        fresh.wokenGeneration = wokenGeneration
        return fresh
    }
}
