import PTTCore
import PTTProtocol

extension Memberships {
    /// `presence`: the channel's members as the asking member may see them: connected, reachable by audio, and
    /// how each would be woken. Only a member of the channel may ask.
    func presence(_ request: PresenceRequest, device: SessionTable.DeviceKey, from session: ControlSession) {
        guard let (channel, _) = lookup(request.channel, device: device, re: request.id, session: session) else {
            return
        }
        let members = plane.directory.members(of: channel.id)
        let listed = members.prefix(PresenceReport.maxMembersListed).map { m in
            MemberPresence(
                id: m.id.rawValue, name: m.displayName, user: m.user, receiveOnly: m.receiveOnly,
                connected: plane.sessions.appSession(of: m) != nil,
                audioReachable: plane.relayLink.heardAnywhere(m.id),
                wakeRoute: WakeTransport(rawValue: plane.notifier.wakeRoute(m).rawValue))
        }
        session.send(
            .presenceReport(
                PresenceReport(
                    re: request.id, channel: ChannelInfo(channel), members: Array(listed), memberCount: members.count)))
    }
}
