import NIOCore
import PTTCore

/// One member on the relay: where its audio goes, and how it is protected.
final class RelayMember {
    let config: RelayMemberConfig
    let channel: ChannelID
    let crypto: MemberCrypto
    /// Learned from the member's first authenticated packet; may move on a later authenticated packet.
    var address: SocketAddress?
    var lastHeard: NIODeadline?
    var lastReported: NIODeadline?
    var lastTalkReported: NIODeadline?
    /// Packets from this member dropped because it did not hold the floor.
    var droppedNotHolder = 0
    /// The next sequence number of this member's listening stream (continuous across speakers).
    var nextSequence: UInt16

    init(config: RelayMemberConfig, channel: ChannelID, crypto: MemberCrypto) {
        self.config = config
        self.channel = channel
        self.crypto = crypto
        self.nextSequence = UInt16(truncatingIfNeeded: config.listenSSRC >> 7)
    }
}
