import NIOCore
import PTTCore
import PTTProtocol
import PTTRelay
import PTTStore

/// What a cluster node's plane knows of its cluster (on the plane's event loop): who owns each channel it has
/// members in, the floors other nodes run, the floor requests it forwarded, and the links its relay was given.
final class ClusterRouting {
    /// This node's name.
    let node: String
    /// The node links, once bound.
    var links: NodeLinks?
    /// The owner of each channel this node has members connected in (the last round of ownership, or the owner's
    /// own floor events since).
    var owners: [ChannelID: String] = [:]
    /// The floors other nodes own, as their last floor event showed them.
    var remoteFloors: [ChannelID: NodeFloorEvent] = [:]
    /// Floor requests forwarded to an owner, by ticket, until its answer (or ``ticketTimeout``).
    var tickets: [UInt64: (requester: Floors.Requester, channel: ChannelID, deadline: NIODeadline)] = [:]
    var nextTicket: UInt64 = 1
    /// The channels this node last told the others it listens in, and the members it said it hears.
    var listening: Set<ChannelID> = []
    var reachable: Set<MemberID> = []
    var pushProviders: Set<MemberID> = []
    /// The links each channel's relay state was given.
    var relayLinks: [ChannelID: RelayChannelLinks] = [:]
    /// Floor requests on channels whose owner this node did not know, waiting for the round asked for then.
    var awaitingOwner: [ChannelID: [Floors.Requester]] = [:]
    /// Asks the cluster node for a round of ownership now (set by the daemon).
    var roundNow: (@Sendable () -> Void)?

    /// Since when this node has been without its own database connection (nil: connected).
    var isolatedSince: NIODeadline?
    /// The other nodes as the last round read them: where members are sent when this node is cut off.
    var otherNodes: [NodeRecord] = []
    /// How long a node cut off from its database keeps its members before sending them to other nodes: a
    /// connection that comes back at once (a restarted backend, a blip) costs them nothing.
    static let isolationGrace = TimeAmount.seconds(3)

    /// How long a forwarded floor request waits for its owner's answer.
    static let ticketTimeout = TimeAmount.seconds(3)
    /// The most forwarded requests waiting at once (a bound; more are answered `unavailable` at once).
    static let maxTickets = 10_000

    init(node: String) {
        self.node = node
    }

    /// The owner of a channel when it is another node; nil when it is this one or unknown.
    func remoteOwner(of channel: ChannelID) -> String? {
        guard let owner = owners[channel], owner != node else { return nil }
        return owner
    }

    /// Whether no node is known to own the channel (as this node last read it).
    func ownerUnknown(_ channel: ChannelID) -> Bool { owners[channel] == nil }

}
