/// One recorded burst, as `GET /api/channels/NAME/bursts` lists it (newest first).
public struct RecordedBurstInfo: Codable, Sendable, Equatable {
    public var id: Int64
    public var channel: String
    /// The speaker's user name, and the name it showed in the channel.
    public var speaker: String
    public var speakerName: String
    /// ISO 8601.
    public var startedAt: String
    public var durationMs: Int
    public var packets: Int
    public var bytes: Int
    /// `recording` (being written), `complete`, or `recovered` (closed at a start after a crash).
    public var state: RecordedBurstState

    public init(
        id: Int64, channel: String, speaker: String, speakerName: String, startedAt: String, durationMs: Int,
        packets: Int, bytes: Int, state: RecordedBurstState
    ) {
        self.id = id
        self.channel = channel
        self.speaker = speaker
        self.speakerName = speakerName
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.packets = packets
        self.bytes = bytes
        self.state = state
    }
}

/// `PUT /api/channels/NAME/recording` body, and the answer with `configured` (the config file records it anyway).
public struct ChannelRecording: Codable, Sendable, Equatable {
    public var channel: String?
    public var recording: Bool
    /// Whether `recording.channels` in the config names the channel (then it is recorded whatever the switch says).
    public var configured: Bool?

    public init(channel: String? = nil, recording: Bool, configured: Bool? = nil) {
        self.channel = channel
        self.recording = recording
        self.configured = configured
    }
}
