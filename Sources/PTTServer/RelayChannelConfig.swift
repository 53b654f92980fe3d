import PTTCore

/// What the audio relay needs to know about one channel: pushed by the control plane to the relay's
/// event loop whenever members or the floor holder change.
struct RelayChannelConfig: Sendable {
    var channel: ChannelID
    var members: [RelayMemberConfig]
    /// The member allowed to send, if any.
    var holder: MemberID?
}

/// One member as the relay sees it.
struct RelayMemberConfig: Sendable, Equatable {
    var id: MemberID
    var ssrc: UInt32
    var listenSSRC: UInt32
    var key: [UInt8]
    var receiveOnly: Bool
}

/// What the relay reports back to the control plane (rate-limited per member).
enum RelayReport: Sendable {
    /// An authenticated packet arrived from a member: media (`talking`) or a keep-alive; with the number of
    /// its packets dropped so far because it did not hold the floor.
    case heard(MemberID, channel: ChannelID, talking: Bool, droppedNotHolder: Int)
}
