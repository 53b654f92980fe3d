import PTTProtocol

/// What ``ChannelHandle/audio`` hands the app, in play-out order: packets to decode, and holes to conceal.
public enum PlayoutItem: Sendable, Equatable {
    /// The next Opus packet: decode and play it.
    case audio(PlayoutPacket)
    /// `count` packets are missing here: conceal them with the decoder (Opus packet loss concealment, or FEC from
    /// the packet that follows).
    case lost(count: Int)
    /// A packet that came after its place was concealed: too late to play. Drop it, or use it to refresh the
    /// decoder's state.
    case late(PlayoutPacket)
}

/// One Opus packet the relay sent, as the jitter buffer releases it.
public struct PlayoutPacket: Sendable, Equatable {
    /// The Opus packet, as the speaker's encoder made it.
    public var opus: [UInt8]
    /// The RTP sequence number of the listener's stream.
    public var sequence: UInt16
    /// The RTP timestamp (48 kHz).
    public var timestamp: UInt32
    /// Whether it starts a talk spurt (a new speaker, or the same one after silence).
    public var startsSpurt: Bool
    /// The speaker's SSRC, from the packet's CSRC list.
    public var speakerSSRC: UInt32?
    /// Who spoke it (the member to show as the active remote participant), if known: the holder named by the floor
    /// events when its SSRC was first heard, also for packets that arrive after the floor went idle.
    public var speaker: MemberInfo?
    /// When it arrived (monotonic nanoseconds).
    public var arrival: UInt64
}
