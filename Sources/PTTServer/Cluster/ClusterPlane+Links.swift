import NIOCore
import PTTCore
import PTTProtocol
import PTTRelay

/// The node links as the plane uses them: which channels each node listens in, whom each node's relay hears and
/// holds a Local Push connection of, and each channel's audio links (``RelayChannelLinks``).
extension ClusterPlane {
    func nodeLinkUp(_ peer: String) {
        links?.send(.listening(listeningMessage), to: peer)
        updateRelayLinks()
    }

    /// A link went down: the requests forwarded over it are answered now, rather than at their timeout.
    func nodeLinkDown(_ peer: String) {
        execute(ownership.nodeDown(peer, now: now))
        updateRelayLinks()
    }

    private var listeningMessage: NodeListening {
        NodeListening(
            channels: listening.sorted { $0.description < $1.description }, reachable: reachable.sorted(),
            pushProviders: pushProviders.sorted())
    }

    /// A peer says which channels it listens in, whom its relay hears, and whose Local Push connections it holds.
    func peerListens(_ message: NodeListening, peer: String) {
        links?.links[peer]?.listening = Set(message.channels)
        links?.links[peer]?.reachable = Set(message.reachable ?? [])
        links?.links[peer]?.pushProviders = Set(message.pushProviders ?? [])
        updateRelayLinks()
    }

    /// Whether a member is heard by another node's relay, as that node last said.
    func heardElsewhere(_ member: MemberID) -> Bool {
        links?.links.values.contains { $0.reachable.contains(member) } ?? false
    }

    /// The node whose Local Push connection of this member is up, as that node last said (nil: none, or this
    /// node's own).
    func pushNode(of member: MemberID) -> String? {
        links?.links.values.first { $0.pushProviders.contains(member) }?.peer
    }

    /// Hands a wake to the node that holds the member's Local Push connection; false if its link is down.
    func sendWake(_ item: OutboxItem<PushFrame>, to node: String) -> Bool {
        let now = now.nanoseconds
        let left = item.deadline.nanoseconds > now ? (item.deadline.nanoseconds - now) / 1_000_000 : 0
        let wake = NodeWake(
            member: item.member, frame: item.payload, deadlineMs: Int(left), burst: item.burst?.rawValue)
        return links?.send(.wake(wake), to: node) ?? false
    }

    /// Tells the other nodes which channels have members connected here, when that changed.
    func announceListening() {
        let now = Set(plane.localChannelIDs().compactMap(ChannelID.init(string:)))
        let members = now.flatMap { plane.directory.members(of: $0) }
        let heard = Set(members.map(\.id).filter { plane.relayLink.audioReachable($0) })
        let providers = Set(members.filter { plane.sessions.pushProviderSession(of: $0) != nil }.map(\.id))
        guard now != listening || heard != reachable || providers != pushProviders else { return }
        listening = now
        reachable = heard
        pushProviders = providers
        links?.broadcast(.listening(listeningMessage))
    }

    /// Gives each channel's relay state its links: on the owner, one to each node listening there; elsewhere, one
    /// to the owner. Only what changed is sent.
    func updateRelayLinks() {
        guard let links else { return }
        var wanted: [ChannelID: RelayChannelLinks] = [:]
        for channel in listening.union(ownership.ownedChannels) {
            switch ownership.route(of: channel) {
            case .here:
                let peers = links.links.values.filter { $0.listening.contains(channel) }.sorted { $0.peer < $1.peer }
                let relayed = peers.compactMap { relayNodeLink($0, channel: channel) }
                if !relayed.isEmpty { wanted[channel] = RelayChannelLinks(owner: nil, links: relayed) }
            case .owner(let owner):
                guard let link = links.links[owner], let relayed = relayNodeLink(link, channel: channel) else {
                    continue
                }
                wanted[channel] = RelayChannelLinks(owner: owner, links: [relayed])
            case .unknown:
                continue
            }
        }
        var changes: [RelayChange] = []
        for channel in Set(wanted.keys).union(relayLinks.keys) where wanted[channel] != relayLinks[channel] {
            changes.append(.links(channel, wanted[channel]))
        }
        relayLinks = wanted
        plane.relayLink.send(changes)
    }

    private func relayNodeLink(_ link: NodeLinks.Link, channel: ChannelID) -> RelayNodeLink? {
        guard let address = link.mediaAddress else { return nil }
        return RelayNodeLink(
            peer: link.peer,
            inboundSSRC: NodeMediaSSRC.derive(key: link.mediaKey, channel: channel, sender: link.peer),
            outboundSSRC: NodeMediaSSRC.derive(key: link.mediaKey, channel: channel, sender: node),
            key: link.mediaKey, suite: link.suite, address: address)
    }

    /// The nodes a channel's audio goes to from here (the admin API's `links`).
    func relayedNodes(of channel: ChannelID) -> [String] {
        relayLinks[channel]?.links.map(\.peer) ?? []
    }
}
