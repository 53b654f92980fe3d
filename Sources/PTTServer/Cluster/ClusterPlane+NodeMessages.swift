import NIOCore
import PTTCore
import PTTProtocol

/// What other nodes tell this node's plane over the node links (``NodeMessage``), and the floor events it sends
/// them for the channels it owns.
extension ClusterPlane {
    /// One message from a peer, on the plane's loop: what it listens to, requests and reports for the channels this
    /// node owns (checked: a node whose view is behind is ignored, and logged), floor events and wakes from owners.
    func nodeMessage(_ message: NodeMessage, from peer: String) {
        plane.eventLoop.preconditionInEventLoop()
        switch message {
        case .hello, .heartbeat:
            break
        case .listening(let listening):
            peerListens(listening, peer: peer)
        case .floorRequest(let request):
            let forwarded = ForwardedFloorRequest(
                from: peer, ticket: FloorTicket(request.ticket), member: request.member,
                emergency: request.emergency?.declaration(by: request.member))
            execute(ownership.forwardedRequestArrived(forwarded, in: request.channel, now: now))
        case .floorRelease(let release):
            guard owns(release.channel, asked: peer) else { return }
            plane.run([.floor(release.channel, .release(release.member))])
        case .talkHeard(let heard):
            guard owns(heard.channel, asked: peer) else { return }
            plane.run([.floor(heard.channel, .talkHeard(heard.member, implicit: heard.implicit))])
        case .floorRevoke(let revoke):
            guard owns(revoke.channel, asked: peer) else { return }
            plane.run([.floor(revoke.channel, .revoke)])
        case .floorEvent(let event):
            followFloorEvent(event, from: peer)
        case .wake(let wake):
            plane.notifier.wakeFromOwner(wake, from: peer)
        case .floorRefused(let refused):
            plane.context.metrics.cluster.forwardsRefused.increment()
            plane.logger.info(
                "a node refused a forwarded floor request: it does not run the channel's floor",
                metadata: [
                    "peer": "\(peer)", "channel": "\(refused.channel)", "owner it knows": "\(refused.owner ?? "-")",
                ])
            execute(ownership.forwardRefused(FloorTicket(refused.ticket), by: peer, now: now))
        case .unknown(let type):
            plane.context.metrics.cluster.messagesSkipped.increment()
            plane.logger.debug(
                "node message of an unknown type skipped", metadata: ["peer": "\(peer)", "type": "\(type)"])
        }
    }

    /// Whether this node runs the channel's floor; a node that asks another is logged (its view is behind).
    func owns(_ channel: ChannelID, asked peer: String) -> Bool {
        guard ownership.ownsFloor(of: channel) else {
            plane.logger.info(
                "a node asked this node for a floor it does not run",
                metadata: ["peer": "\(peer)", "channel": "\(channel)", "owner": "\(ownership.owners[channel] ?? "-")"])
            return false
        }
        return true
    }

    /// Another node's floor event: its owner is that node; the relay learns the holder; the members connected here
    /// are told what the event says (the requester of a forwarded request gets the answer to it).
    private func followFloorEvent(_ event: NodeFloorEvent, from peer: String) {
        let ticket = event.requester.flatMap { $0.node == node ? FloorTicket($0.ticket) : nil }
        let actions = ownership.floorEventArrived(in: event.channel, from: peer, answering: ticket, now: now)
        var requester: Floors.Requester?
        for case .answer(let asked, .answeredBy) in actions { requester = asked }
        execute(actions)
        if actions.contains(where: { if case .ownerChanged = $0 { true } else { false } }) { updateRelayLinks() }
        let before = remoteFloors[event.channel]?.holder
        remoteFloors[event.channel] = event
        if event.holder != before {
            if let released = before, event.holder == nil, event.releasedBy == released {
                plane.relayLink.send(
                    [.released(event.channel, by: released, grace: plane.configuration.floor.releaseGrace)])
            } else {
                plane.relayLink.send([.floor(event.channel, holder: event.holder)])
            }
        }
        var frames = FloorActionFrames(plane: plane, channel: event.channel, requester: requester, remote: true)
        var effects: [PlaneEffect] = []
        frames.append(event.actions, to: &effects)
        plane.run(effects)
    }

    /// A floor event ran here on a channel this node owns: the nodes with members connected there (and the node
    /// that forwarded the request, if one did) learn its actions and the new holder.
    func floorEventRan(
        _ channel: ChannelID, actions: [FloorAction], holder: MemberID?, requester: Floors.Requester?
    ) {
        guard let links, !links.links.isEmpty, ownership.ownsFloor(of: channel) else { return }
        let floors = plane.floors
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
