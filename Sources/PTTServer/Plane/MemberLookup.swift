import PTTCore

extension SessionTable.DeviceKey {
    /// The channel a request names (`reference`) in `directory`, and this device's membership in it, or the refusal
    /// that answers the request.
    func membership(
        in reference: String, of directory: ChannelDirectory
    ) throws(JoinPlan.Refusal) -> (Channel, Membership) {
        guard let channel = directory.channel(named: reference) else {
            throw JoinPlan.Refusal(code: .noSuchChannel, message: "no channel '\(reference)'")
        }
        guard let membership = directory.membership(channel: channel.id, user: user, device: device) else {
            throw JoinPlan.Refusal(code: .notAMember, message: "not a member of channel '\(channel.name)'")
        }
        return (channel, membership)
    }
}
