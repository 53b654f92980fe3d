/// One broadcast running, in `GET /api/broadcasts`.
public struct BroadcastStatus: Codable, Sendable, Equatable {
    /// The broadcast's id (a UUID): what `DELETE /api/broadcasts/ID` names.
    public var id: String
    /// The sending user, and the display name of the membership it talks on.
    public var speaker: String
    public var speakerName: String
    /// The channels still in it, the sender's first.
    public var channels: [String]
    /// When it began (ISO 8601).
    public var since: String

    public init(id: String, speaker: String, speakerName: String, channels: [String], since: String) {
        self.id = id
        self.speaker = speaker
        self.speakerName = speakerName
        self.channels = channels
        self.since = since
    }
}
