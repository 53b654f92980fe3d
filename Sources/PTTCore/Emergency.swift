import Foundation

/// How grave a declared emergency is (issue 25; 3GPP TS 23.379's emergency and imminent-peril group calls).
public enum EmergencyLevel: String, Sendable, CaseIterable {
    /// Someone needs help now: the declarer's requests outrank everything (``FloorUrgency/emergency``).
    case emergency
    /// Danger ahead: above every ordinary priority, below an emergency (``FloorUrgency/imminentPeril``).
    case imminentPeril = "imminent-peril"

    /// How the declarer's floor requests rank while the state holds.
    public var urgency: FloorUrgency {
        switch self {
        case .emergency: .emergency
        case .imminentPeril: .imminentPeril
        }
    }
}

/// A channel's emergency state: declared by a member whose user has ``UserRights/emergency``, stored with the
/// channel, and ended only by its declarer or an operator.
public struct ChannelEmergency: Sendable, Hashable {
    public var level: EmergencyLevel
    /// The membership that declared it.
    public var member: MemberID
    /// Its user (the membership may end before the emergency does: the user's name still says who declared it).
    public var user: String
    public var since: Date

    public init(level: EmergencyLevel, member: MemberID, user: String, since: Date) {
        self.level = level
        self.member = member
        self.user = user
        self.since = since
    }

    /// The emergency a storage row holds: nil when its columns are empty, or name a level this version does not
    /// know (a newer server's: the channel is then shown without one rather than with a wrong one).
    public static func stored(level: String?, member: String?, user: String?, since: Double?) -> ChannelEmergency? {
        guard let level = level.flatMap(EmergencyLevel.init(rawValue:)), let member, let user, let since else {
            return nil
        }
        return ChannelEmergency(
            level: level, member: MemberID(member), user: user, since: Date(timeIntervalSince1970: since))
    }
}

/// Who cleared a channel's last emergency: kept with the channel, so that every node of a cluster tells its members
/// the same `emergency-cleared`.
public struct EmergencyClearing: Sendable, Hashable {
    /// The declarer's user (from any of its devices), or an operator.
    public enum Clearer: String, Sendable, Hashable {
        case declarer
        case `operator`
    }

    public var by: Clearer
    /// The declarer's display name, or `operator`.
    public var name: String

    public init(by: Clearer, name: String) {
        self.by = by
        self.name = name
    }

    /// An operator's clearing, as every operator's is named.
    public static let byOperator = EmergencyClearing(by: .operator, name: "operator")

    /// The clearing a storage row holds: nil when its columns are empty or name a clearer this version does not
    /// know.
    public static func stored(by: String?, name: String?) -> EmergencyClearing? {
        guard let by = by.flatMap(Clearer.init(rawValue:)), let name else { return nil }
        return EmergencyClearing(by: by, name: name)
    }
}

/// What a user may do beyond talking and listening (set by an operator: `pttctl user rights`).
public struct UserRights: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// May declare an emergency or an imminent peril on its channels.
    public static let emergency = UserRights(rawValue: 1 << 0)
    /// May talk to several channels at once.
    public static let broadcast = UserRights(rawValue: 1 << 1)
}
