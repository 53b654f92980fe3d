/// `replay`: play a recorded burst of the channel to me alone, on my media stream (the last one when `burst` is
/// not given). Answered by `replaying`, or an `error` (`no-such-recording`, `channel-busy` while a burst is live).
public struct Replay: Codable, Sendable, Equatable {
    public var id: Int?
    /// Channel name or UUID.
    public var channel: String
    /// The recorded burst's id (`pttctl history`); the channel's most recent one if absent.
    public var burst: Int64?
    public init(id: Int? = nil, channel: String, burst: Int64? = nil) {
        self.id = id
        self.channel = channel
        self.burst = burst
    }
}

/// `replaying`: the burst's packets are on their way, in real time; `replay-ended` follows.
public struct Replaying: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public var burst: Int64
    /// The speaker's display name.
    public var speaker: String
    /// When the burst started, in milliseconds since 1970.
    public var startedAt: Int64
    public var durationMs: Int
    public var packets: Int
    public init(
        re: Int? = nil, channel: ChannelInfo, burst: Int64, speaker: String, startedAt: Int64, durationMs: Int,
        packets: Int
    ) {
        self.re = re
        self.channel = channel
        self.burst = burst
        self.speaker = speaker
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.packets = packets
    }
}

/// `replay-ended`: a replay is over: `ended` (every packet sent) or `cancelled` (live audio on the channel, which
/// always wins, or the membership changed).
public struct ReplayEnded: Codable, Sendable, Equatable {
    public var channel: ChannelInfo
    public var burst: Int64
    public var outcome: ReplayOutcome
    public init(channel: ChannelInfo, burst: Int64, outcome: ReplayOutcome) {
        self.channel = channel
        self.burst = burst
        self.outcome = outcome
    }
}
