import Foundation

/// A private call's channel and its two memberships, as the directory changes that make them (Docs/CALLS-DESIGN.md):
/// one transaction at `call-accept`, so that a connected call is kept across a restart like any channel.
public struct CallPlan: Sendable {
    /// One side of a call: a device of a user, with the display name and SRTP suite its membership gets.
    public struct Side: Sendable, Equatable {
        public var user: String
        public var device: String
        public var displayName: String?
        public var mediaSuite: MediaSuite

        public init(user: String, device: String, displayName: String?, mediaSuite: MediaSuite) {
            self.user = user
            self.device = device
            self.displayName = displayName
            self.mediaSuite = mediaSuite
        }
    }

    public var channel: Channel
    public var caller: Membership
    public var callee: Membership
    /// What to store, in order.
    public var changes: [DirectoryChange] { [.putChannel(channel), .putMembership(caller), .putMembership(callee)] }

    /// Plans the call `id` between two sides in `directory`, which is left with the plan applied. The channel is
    /// named by its id: a group channel's name never looks like one, so the two never collide.
    public static func make<R: RandomNumberGenerator>(
        _ id: ChannelID, caller: Side, callee: Side, in directory: inout ChannelDirectory, now: Date,
        random: inout R
    ) throws(DirectoryError) -> CallPlan {
        if directory.channels[id] != nil { throw .channelExists(id.description) }
        let channel = Channel(id: id, name: id.description, createdAt: now, kind: .call)
        directory.apply([.putChannel(channel)])
        do {
            let (caller, _) = try directory.planJoin(
                channel: id, user: caller.user, device: caller.device, displayName: caller.displayName,
                receiveOnly: false, pushToken: nil, mediaSuite: caller.mediaSuite, now: now, random: &random)
            directory.apply([.putMembership(caller)])
            // The callee joins a millisecond later: the channel's oldest member is its caller, also after a restart.
            let (callee, _) = try directory.planJoin(
                channel: id, user: callee.user, device: callee.device, displayName: callee.displayName,
                receiveOnly: false, pushToken: nil, mediaSuite: callee.mediaSuite, now: now.addingTimeInterval(0.001),
                random: &random)
            directory.apply([.putMembership(callee)])
            return CallPlan(channel: channel, caller: caller, callee: callee)
        } catch {
            directory.apply([.removeChannel(id)])
            throw error
        }
    }
}
