import PTTCore
import PTTProtocol

/// Floor requests and reports for channels whose floor another node may run.
extension ClusterPlane {
    /// A member connected here asks for a channel's floor: decided here when this node owns it, forwarded with a
    /// ticket when another node does (its floor event answers), held for a round when no owner is known.
    func requestFloor(_ requester: Floors.Requester, in channel: ChannelID) {
        execute(ownership.floorRequested(by: requester, member: requester.member, in: channel, now: now))
    }

    /// Sends a message about a channel to its owner (a release, a talk report, a revoke); false if it is out of
    /// reach.
    @discardableResult
    func sendToOwner(_ message: NodeMessage, owner: String) -> Bool {
        links?.send(message, to: owner) ?? false
    }

    /// A member was heard talking on a channel whose floor does not run here: the report goes to the owner; with
    /// no owner known, a round is asked for and the report dropped (the next goes to the owner it finds).
    /// False when the floor runs here.
    func talkHeard(_ member: MemberID, in channel: ChannelID, implicit: Bool) -> Bool {
        switch ownership.route(of: channel) {
        case .here:
            return false
        case .owner(let owner):
            sendToOwner(.talkHeard(NodeTalkHeard(channel: channel, member: member, implicit: implicit)), owner: owner)
        case .unknown:
            roundNow?()
        }
        return true
    }
}
