import NIOCore

/// One Opus packet as a listener received it from the relay.
public struct ReceivedAudio: Sendable, Equatable {
    public var payload: [UInt8]
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var marker: Bool
    /// The stream's SSRC (the listener's stable `listenSSRC`).
    public var ssrc: UInt32
    /// The speaker, from the CSRC list.
    public var speakerSSRC: UInt32?
    /// When it arrived (monotonic nanoseconds, as ``clock()`` tells).
    public var arrival: UInt64

    /// The monotonic clock of `arrival`, in nanoseconds.
    public static func clock() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
