import NIOCore
import PTTCore

/// One channel's media link to another node of a cluster, as the relay sees it: copies of the channel's audio go
/// to the peer's relay, protected with the pair's key on `outboundSSRC`, and the peer's copies arrive on
/// `inboundSSRC` with the same key. The speaker travels in the CSRC, as it does to members.
public struct RelayNodeLink: Sendable, Equatable {
    /// The peer node's name.
    public var peer: String
    /// The SSRC of the peer's copies to this node, and of this node's copies to the peer (both derived from the
    /// pair's key: see `NodeMediaKeys` in the server).
    public var inboundSSRC: UInt32
    public var outboundSSRC: UInt32
    /// The pair's SRTP master key and salt, and its suite.
    public var key: [UInt8]
    public var suite: MediaSuite
    /// The peer's relay socket.
    public var address: SocketAddress

    public init(
        peer: String, inboundSSRC: UInt32, outboundSSRC: UInt32, key: [UInt8], suite: MediaSuite,
        address: SocketAddress
    ) {
        self.peer = peer
        self.inboundSSRC = inboundSSRC
        self.outboundSSRC = outboundSSRC
        self.key = key
        self.suite = suite
        self.address = address
    }

    /// The link as a relay member of `channel` (its id names the peer; it never holds a floor).
    func memberConfig(in channel: ChannelID) -> RelayMemberConfig {
        RelayMemberConfig(
            id: MemberID("node:\(peer)"), channel: channel, ssrc: inboundSSRC, listenSSRC: outboundSSRC, key: key,
            suite: suite, receiveOnly: true)
    }
}

/// A channel's place in a cluster, as the relay applies it: which node owns it, and its links.
///
/// - On the owner (`owner` nil), the audio of a speaker connected here, or arriving from one link, goes to the
///   members here and to every other link: the nodes with listeners.
/// - On another node, the audio of a speaker connected here goes to its members and to the owner's link (the only
///   one); what arrives from the owner goes to its members only, and nothing arrives from anyone else.
public struct RelayChannelLinks: Sendable, Equatable {
    /// The owner node, nil when this node owns the channel.
    public var owner: String?
    public var links: [RelayNodeLink]

    public init(owner: String?, links: [RelayNodeLink]) {
        self.owner = owner
        self.links = links
    }
}
