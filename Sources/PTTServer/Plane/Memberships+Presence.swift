import PTTCore
import PTTProtocol

extension Memberships {
    /// `presence`: the channel's members as the asking member may see them: connected, reachable by audio, and
    /// how each would be woken. Only a member of the channel may ask.
    func presence(
        _ request: PresenceRequest, device: SessionTable.DeviceKey, from session: ControlSession
    ) -> [PlaneEffect] {
        let channel: Channel
        do { (channel, _) = try device.membership(in: request.channel, of: plane.directory) } catch {
            return [.error(session, re: request.id, error.code, error.message)]
        }
        let members = plane.directory.members(of: channel.id)
        let listed = members.prefix(PresenceReport.maxMembersListed).map { m in
            MemberPresence(
                id: m.id.rawValue, name: m.displayName, user: m.user, receiveOnly: m.receiveOnly,
                connected: plane.sessions.appSession(of: m) != nil,
                audioReachable: plane.relayLink.heardAnywhere(m.id),
                wakeRoute: WakeTransport(rawValue: plane.notifier.wakeRoute(m).rawValue))
        }
        let report = PresenceReport(
            re: request.id, channel: ChannelInfo(channel), members: Array(listed), memberCount: members.count)
        return [.send(.presenceReport(report), to: session)]
    }
}
