import PTTCore

extension ChannelDirectory {
    /// The channel a request names (`reference`) and the asking device's membership in it, or the refusal that
    /// answers the request.
    func find(
        _ reference: String, device: SessionTable.DeviceKey
    ) throws(JoinPlan.Refusal) -> (Channel, Membership) {
        guard let channel = channel(named: reference) else {
            throw JoinPlan.Refusal(code: .noSuchChannel, message: "no channel '\(reference)'")
        }
        guard let membership = membership(channel: channel.id, user: device.user, device: device.device) else {
            throw JoinPlan.Refusal(code: .notAMember, message: "not a member of channel '\(channel.name)'")
        }
        return (channel, membership)
    }
}
