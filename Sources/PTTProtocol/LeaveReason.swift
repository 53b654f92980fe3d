/// Why a membership ended: `left.reason`, and `reason` in a leave push's payload (which never says `left`).
public enum LeaveReason: WireValue {
    /// The member sent `leave`.
    case left
    /// An operator removed the member.
    case kicked
    /// An operator deleted the channel.
    case channelDeleted
    /// An operator deleted the user.
    case userRemoved
    /// On a node of a cluster: the membership was ended through another node (an operator kicked the member
    /// there, or the device left from its connection there); the stored directory does not say which.
    case removed
    /// A value from a newer server.
    case unknown(String)

    public static let known: [LeaveReason] = [.left, .kicked, .channelDeleted, .userRemoved, .removed]

    public var rawValue: String {
        switch self {
        case .left: "left"
        case .kicked: "kicked"
        case .channelDeleted: "channel-deleted"
        case .userRemoved: "user-removed"
        case .removed: "removed"
        case .unknown(let value): value
        }
    }
}
