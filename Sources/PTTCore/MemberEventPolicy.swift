/// Who is told when another member joins or leaves a channel.
///
/// Telling every member of every join costs O(N) writes per join and O(N²) for a channel that fills up:
/// 500,000 `member-joined` frames for a 1,000-member "all hands" channel, sent to phones that mostly
/// sleep. So a member is told only if it asked at join (`memberEvents: true`: a dispatcher console, say),
/// or, when it did not say, if the channel was small when it joined: at most ``upTo`` members, the
/// size up to which `joined` lists the whole roster and events keep that list exact. The decision is
/// made at each join and kept with the membership, and `joined` tells the client which it got.
public struct MemberEventPolicy: Sendable, Equatable {
    /// Channel size (counting the joining member) up to which a member that did not say is told.
    public var upTo: Int

    public init(upTo: Int = 64) { self.upTo = upTo }

    /// Whether a joining member is told of later joins and leaves.
    /// - Parameters:
    ///   - asked: what the join said (`memberEvents`), nil if nothing.
    ///   - membersAfterJoin: the channel's member count with this member in it.
    public func tells(asked: Bool?, membersAfterJoin: Int) -> Bool {
        asked ?? (membersAfterJoin <= upTo)
    }
}
