import Foundation

/// Where a recorded burst's file stands.
public enum RecordingState: String, Sendable, Codable {
    /// Being written (or left so by a crash, until the next start closes it).
    case recording
    /// Written to its end.
    case complete
    /// Closed at a start after a crash: it holds what reached the disk.
    case recovered
}

/// One talk burst stored as an Ogg Opus file, as the `burst` table holds it.
public struct RecordedBurst: Sendable, Equatable {
    public var id: Int64
    public var channel: ChannelID
    /// The channel's name when the burst was recorded.
    public var channelName: String
    /// The speaker's user name and the name it showed.
    public var speaker: String
    public var speakerName: String
    public var startedAt: Date
    public var durationMs: Int
    public var packets: Int
    /// The file's size.
    public var bytes: Int
    /// The file, relative to the recordings directory.
    public var file: String
    public var state: RecordingState

    public init(
        id: Int64, channel: ChannelID, channelName: String, speaker: String, speakerName: String, startedAt: Date,
        durationMs: Int = 0, packets: Int = 0, bytes: Int = 0, file: String, state: RecordingState = .recording
    ) {
        self.id = id
        self.channel = channel
        self.channelName = channelName
        self.speaker = speaker
        self.speakerName = speakerName
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.packets = packets
        self.bytes = bytes
        self.file = file
        self.state = state
    }
}
