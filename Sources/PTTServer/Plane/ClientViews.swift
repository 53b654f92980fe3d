import PTTCore
import PTTProtocol

extension ChannelInfo {
    /// A channel as clients see it.
    init(_ channel: Channel) {
        self.init(id: channel.id.description, name: channel.name, imageURL: channel.imageURL)
    }
}

extension MemberInfo {
    /// A member as other members see it.
    init(_ m: Membership) {
        self.init(
            id: m.id.rawValue, name: m.displayName, user: m.user, priority: m.priority, receiveOnly: m.receiveOnly)
    }
}
