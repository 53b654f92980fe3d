import NIOCore
import PTTCore
import PTTProtocol

/// What other nodes of a cluster tell this node's plane over the node links (``NodeMessage``).
extension ControlPlane {
    /// One message from a peer, on the plane's loop: what it listens to, requests and reports for the channels this
    /// node owns (checked: a node whose view is behind is ignored, and logged), floor events and wakes from owners.
    func nodeMessage(_ message: NodeMessage, from peer: String) {
        eventLoop.preconditionInEventLoop()
        guard let cluster else { return }
        switch message {
        case .hello, .heartbeat: break
        case .listening(let listening):
            cluster.links?.links[peer]?.listening = Set(listening.channels)
            cluster.links?.links[peer]?.reachable = Set(listening.reachable ?? [])
            cluster.links?.links[peer]?.pushProviders = Set(listening.pushProviders ?? [])
            updateRelayLinks()
        case .floorRequest(let request):
            guard owns(request.channel, asked: peer) else { return }
            let requester = Floors.Requester(
                member: request.member, session: nil, re: nil,
                remote: NodeRequester(node: peer, ticket: request.ticket, member: request.member))
            floors.request(from: requester, in: request.channel)
        case .floorRelease(let release):
            guard owns(release.channel, asked: peer) else { return }
            floors.event(release.channel) { floor, now in floor.release(release.member, now: now) }
        case .talkHeard(let heard):
            guard owns(heard.channel, asked: peer) else { return }
            floors.talkHeard(heard.member, in: heard.channel, implicit: heard.implicit)
        case .floorRevoke(let revoke):
            guard owns(revoke.channel, asked: peer) else { return }
            floors.event(revoke.channel) { floor, now in floor.revoke(now: now) }
        case .floorEvent(let event):
            followFloorEvent(event, from: peer)
        case .wake(let wake):
            notifier.wakeFromOwner(wake, from: peer)
        }
    }

    /// Whether this node runs the channel's floor; a node that asks another is logged (its view is behind).
    private func owns(_ channel: ChannelID, asked peer: String) -> Bool {
        guard let cluster, cluster.owners[channel] == cluster.node else {
            logger.info(
                "a node asked this node for a floor it does not run",
                metadata: ["peer": "\(peer)", "channel": "\(channel)"])
            return false
        }
        return true
    }

    /// Another node's floor event: its owner is that node; the relay learns the holder; the members connected here
    /// are told what the event says (the requester of a forwarded request gets the answer to it).
    private func followFloorEvent(_ event: NodeFloorEvent, from peer: String) {
        guard let cluster else { return }
        if cluster.owners[event.channel] != peer {
            ownerChanged(event.channel, from: cluster.owners[event.channel], to: peer)
            cluster.owners[event.channel] = peer
            updateRelayLinks()
        }
        let before = cluster.remoteFloors[event.channel]?.holder
        cluster.remoteFloors[event.channel] = event
        if event.holder != before {
            if let released = before, event.holder == nil, event.releasedBy == released {
                relayLink.released(event.channel, by: released)
            } else {
                relayLink.syncFloor(event.channel, holder: event.holder)
            }
        }
        var requester: Floors.Requester?
        if let asked = event.requester, asked.node == cluster.node {
            requester = cluster.tickets.removeValue(forKey: asked.ticket)?.requester
        }
        var frames = FloorActionFrames(plane: self, channel: event.channel, requester: requester, remote: true)
        frames.execute(event.actions)
    }
}
