import NIOCore
import PTTCore
import PTTProtocol
import PTTRelay
import PTTStore

/// A cluster node's plane and the other nodes: floors run on each channel's owner, requests and reports go to it
/// over the node links, its floor events come back to every node, and each channel's audio crosses the links
/// (``RelayChannelLinks``).
extension ControlPlane {
    /// The owner of a channel when it is another node (nil: this one, unknown, or no cluster).
    func remoteOwner(of channel: ChannelID) -> String? { cluster?.remoteOwner(of: channel) }

    // MARK: The view of a round

    /// A round of ownership read the owners of this node's channels and the live nodes.
    func clusterViewChanged(owners: [String: String], nodes: [NodeRecord]) {
        eventLoop.preconditionInEventLoop()
        guard let cluster else { return }
        // A round always reads this node's own row: no rows at all is the lost connection's view.
        if nodes.isEmpty { databaseLost() } else { databaseBack(nodes) }
        cluster.links?.nodesChanged(nodes)
        var fresh: [ChannelID: String] = [:]
        for (id, node) in owners { if let channel = ChannelID(string: id) { fresh[channel] = node } }
        for channel in Set(fresh.keys).union(cluster.owners.keys) where fresh[channel] != cluster.owners[channel] {
            ownerChanged(channel, from: cluster.owners[channel], to: fresh[channel])
        }
        cluster.owners = fresh
        announceListening()
        updateRelayLinks()
        settleAwaitingOwner()
    }

    /// Holds a floor request until a round (asked for now) says who owns the channel: a node never decides a floor
    /// it does not own.
    func awaitOwner(_ requester: Floors.Requester, channel: ChannelID) {
        guard let cluster else { return }
        let waiting = cluster.awaitingOwner.values.reduce(0) { $0 + $1.count }
        guard waiting < ClusterRouting.maxTickets else { return ownerUnavailable(requester, owner: "?") }
        cluster.awaitingOwner[channel, default: []].append(requester)
        cluster.roundNow?()
        eventLoop.scheduleTask(in: ClusterRouting.ticketTimeout) { self.settleAwaitingOwner(giveUp: true) }
    }

    /// Sends the held requests where their channel's owner now is; after the timeout, answers the rest
    /// `unavailable`.
    private func settleAwaitingOwner(giveUp: Bool = false) {
        guard let cluster else { return }
        for (channel, requesters) in cluster.awaitingOwner {
            guard let owner = cluster.owners[channel] else {
                if giveUp {
                    cluster.awaitingOwner[channel] = nil
                    for requester in requesters { ownerUnavailable(requester, owner: "?") }
                }
                continue
            }
            cluster.awaitingOwner[channel] = nil
            for requester in requesters where requester.session.map(sessions.isOpen) ?? false {
                if owner == cluster.node {
                    floors.request(from: requester, in: channel)
                } else {
                    forwardFloorRequest(requester, channel: channel, to: owner)
                }
            }
        }
    }

    /// A channel changed owner: a floor run here by another node's leave goes idle, as does one seen from a former
    /// owner; members here are told (a new owner starts idle).
    func ownerChanged(_ channel: ChannelID, from old: String?, to new: String?) {
        guard let cluster else { return }
        if new != cluster.node, floors[channel] != nil {
            let wasTaken = floors[channel]?.holder != nil
            floors.remove(channel)
            if wasTaken { floorWentIdleHere(channel) }
        }
        if old != cluster.node, let seen = cluster.remoteFloors.removeValue(forKey: channel), seen.holder != nil {
            floorWentIdleHere(channel)
        }
        guard let new else { return }
        logger.notice(
            "channel owner changed", metadata: ["channel": "\(channel)", "from": "\(old ?? "-")", "to": "\(new)"])
    }

    private func floorWentIdleHere(_ channel: ChannelID) {
        relayLink.syncFloor(channel, holder: nil)
        guard let found = directory.channels[channel] else { return }
        broadcast(.floorIdle(FloorChannelEvent(channel: ChannelInfo(found))), to: channel)
    }

    // MARK: Links

    func nodeLinkUp(_ peer: String) {
        guard let cluster else { return }
        cluster.links?.send(.listening(listeningMessage(cluster)), to: peer)
        updateRelayLinks()
    }

    private func listeningMessage(_ cluster: ClusterRouting) -> NodeListening {
        NodeListening(
            channels: cluster.listening.sorted { $0.description < $1.description },
            reachable: cluster.reachable.sorted(), pushProviders: cluster.pushProviders.sorted())
    }

    /// Whether a member is heard by this node's relay, or by another node's as that node last said: a member
    /// connected anywhere in the cluster is reachable, and is not woken.
    func audioReachable(_ member: MemberID) -> Bool {
        if relayLink.audioReachable(member) { return true }
        guard let links = cluster?.links else { return false }
        return links.links.values.contains { $0.reachable.contains(member) }
    }

    func nodeLinkDown(_ peer: String) {
        updateRelayLinks()
    }

    /// Tells the other nodes which channels have members connected here, when that changed.
    private func announceListening() {
        guard let cluster else { return }
        let now = Set(localChannelIDs().compactMap(ChannelID.init(string:)))
        let members = now.flatMap { directory.members(of: $0) }
        let heard = Set(members.map(\.id).filter { relayLink.audioReachable($0) })
        let providers = Set(members.filter { sessions.pushProviderSession(of: $0) != nil }.map(\.id))
        guard now != cluster.listening || heard != cluster.reachable || providers != cluster.pushProviders else {
            return
        }
        cluster.listening = now
        cluster.reachable = heard
        cluster.pushProviders = providers
        cluster.links?.broadcast(.listening(listeningMessage(cluster)))
    }

    /// Gives each channel's relay state its links: on the owner, one to each node listening there; elsewhere, one
    /// to the owner. Only what changed is sent.
    func updateRelayLinks() {
        guard let cluster, let links = cluster.links else { return }
        var wanted: [ChannelID: RelayChannelLinks] = [:]
        let channels = cluster.listening.union(cluster.owners.filter { $0.value == cluster.node }.keys)
        for channel in channels {
            if cluster.owners[channel] == cluster.node {
                let peers = links.links.values.filter { $0.listening.contains(channel) }.sorted { $0.peer < $1.peer }
                let relayed = peers.compactMap { relayNodeLink($0, channel: channel) }
                if !relayed.isEmpty { wanted[channel] = RelayChannelLinks(owner: nil, links: relayed) }
            } else if let owner = cluster.owners[channel], let link = links.links[owner],
                let relayed = relayNodeLink(link, channel: channel)
            {
                wanted[channel] = RelayChannelLinks(owner: owner, links: [relayed])
            }
        }
        var changes: [RelayChange] = []
        for channel in Set(wanted.keys).union(cluster.relayLinks.keys)
        where wanted[channel] != cluster.relayLinks[channel] {
            changes.append(.links(channel, wanted[channel]))
        }
        cluster.relayLinks = wanted
        relayLink.send(changes)
    }

    private func relayNodeLink(_ link: NodeLinks.Link, channel: ChannelID) -> RelayNodeLink? {
        guard let address = link.mediaAddress, let cluster else { return nil }
        return RelayNodeLink(
            peer: link.peer,
            inboundSSRC: NodeMediaSSRC.derive(key: link.mediaKey, channel: channel, sender: link.peer),
            outboundSSRC: NodeMediaSSRC.derive(key: link.mediaKey, channel: channel, sender: cluster.node),
            key: link.mediaKey, suite: link.suite, address: address)
    }

    /// The nodes a channel's audio goes to from here (the admin API's `links`).
    func relayedNodes(of channel: ChannelID) -> [String]? {
        guard let cluster else { return nil }
        return cluster.relayLinks[channel]?.links.map(\.peer) ?? []
    }

    // MARK: Forwarding to an owner

    /// A member connected here asks for a channel's floor that `owner` runs: the request goes there with a ticket;
    /// the answer comes back in the owner's floor event. An owner out of reach is answered `unavailable`.
    func forwardFloorRequest(_ requester: Floors.Requester, channel: ChannelID, to owner: String) {
        guard let cluster, let links = cluster.links else { return }
        let now = NIODeadline.now()
        expireTickets(now: now)
        let ticket = cluster.nextTicket
        cluster.nextTicket += 1
        guard cluster.tickets.count < ClusterRouting.maxTickets,
            links.send(
                .floorRequest(NodeFloorRequest(channel: channel, member: requester.member, ticket: ticket)), to: owner)
        else {
            return ownerUnavailable(requester, owner: owner)
        }
        cluster.tickets[ticket] = (requester, channel, now + ClusterRouting.ticketTimeout)
        eventLoop.scheduleTask(in: ClusterRouting.ticketTimeout + .milliseconds(10)) { self.expireTickets(now: .now()) }
    }

    private func expireTickets(now: NIODeadline) {
        guard let cluster else { return }
        for (ticket, waiting) in cluster.tickets where waiting.deadline <= now {
            cluster.tickets[ticket] = nil
            ownerUnavailable(waiting.requester, owner: cluster.owners[waiting.channel] ?? "?")
        }
    }

    private func ownerUnavailable(_ requester: Floors.Requester, owner: String) {
        let message =
            owner == "?"
            ? "no node owns the channel's floor now (this node cannot reach the cluster's database): try again"
            : "the channel's floor runs on node '\(owner)', which cannot be reached now: try again"
        requester.session?.send(.error(ErrorFrame(re: requester.re, code: .unavailable, message: message)))
    }

    /// Sends a message about a channel to its owner (a release, a talk report, a revoke); false if it is out of
    /// reach.
    @discardableResult
    func sendToOwner(_ message: NodeMessage, owner: String) -> Bool {
        cluster?.links?.send(message, to: owner) ?? false
    }

    // MARK: Wakes

    /// The node whose Local Push connection of this member is up, as that node last said (nil: none, or this
    /// node's own).
    func pushNode(of member: MemberID) -> String? {
        cluster?.links?.links.values.first { $0.pushProviders.contains(member) }?.peer
    }

    /// Hands a wake to the node that holds the member's Local Push connection; false if its link is down.
    func sendWake(_ item: OutboxItem<PushFrame>, to node: String) -> Bool {
        let now = context.clock.now().nanoseconds
        let left = item.deadline.nanoseconds > now ? (item.deadline.nanoseconds - now) / 1_000_000 : 0
        return cluster?.links?.send(
            .wake(
                NodeWake(member: item.member, frame: item.payload, deadlineMs: Int(left), burst: item.burst?.rawValue)),
            to: node) ?? false
    }

    // MARK: The owner's floor events

    /// A floor event ran here on a channel this node owns: the nodes with members connected there (and the node
    /// that forwarded the request, if one did) learn its actions and the new holder.
    func floorEventRan(
        _ channel: ChannelID, actions: [FloorAction], holder: MemberID?, requester: Floors.Requester?
    ) {
        guard let cluster, let links = cluster.links, !links.links.isEmpty, cluster.owners[channel] == cluster.node
        else { return }
        let event = NodeFloorEvent(
            channel: channel, holder: holder, actions: actions, state: floors.state(of: channel),
            requester: requester?.remote,
            releasedBy: holder == nil ? floors[channel]?.releaseGrace.flatMap { $0.afterRevoke ? nil : $0.member } : nil
        )
        for link in links.links.values where link.listening.contains(channel) || link.peer == requester?.remote?.node {
            links.send(.floorEvent(event), to: link.peer)
        }
    }
}
