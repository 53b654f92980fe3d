/// Machine-readable error codes carried by the `error` frame (see Docs/PROTOCOL.md).
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    /// The frame's length prefix exceeded 64 KiB. The connection is closed.
    case frameTooLarge = "frame-too-large"
    /// The body was not valid JSON, or not an object with a known `type` and its fields. The connection is closed.
    case malformedFrame = "malformed-frame"
    /// `hello.version` is not one the server speaks. The connection is closed.
    case unsupportedVersion = "unsupported-version"
    /// Unknown user or wrong secret. The connection is closed.
    case badCredentials = "bad-credentials"
    /// A frame other than `hello` arrived before `welcome`. The connection is closed.
    case notAuthenticated = "not-authenticated"
    /// A second `hello` on a session. The connection is closed.
    case alreadyAuthenticated = "already-authenticated"
    /// The channel named does not exist (and the server does not create channels on join).
    case noSuchChannel = "no-such-channel"
    /// The device is not a member of the channel named.
    case notAMember = "not-a-member"
    /// `replay` named a burst the channel has no recording of (or the channel has none).
    case noSuchRecording = "no-such-recording"
    /// `replay` while a burst is live on the channel: live audio wins. Also `emergency` on a channel whose
    /// emergency another user declared.
    case channelBusy = "channel-busy"
    /// The user lacks the right the request needs (`emergency` without the emergency right).
    case notPermitted = "not-permitted"
    /// A well-formed frame with an unacceptable value (empty name, bad token hex, ...).
    case badRequest = "bad-request"
    /// A newer connection for the same device and role replaced this one. The connection is closed.
    case replaced = "replaced"
    /// `heartbeatMissLimit` (default 3) heartbeats in a row went unacknowledged. The connection is closed.
    case heartbeatTimeout = "heartbeat-timeout"
    /// The server is shutting down. The connection is closed.
    case shuttingDown = "shutting-down"
    /// In a cluster: the node that runs the channel's floor cannot be reached now; try again, or connect to
    /// another node.
    case unavailable = "unavailable"
    /// Something failed inside the server (storage, ...); the request had no effect.
    case `internal` = "internal"
}
