/// A right an operator gives a user beyond talking and listening: `rights` in the admin API's users.
public enum UserRight: WireValue {
    /// May declare an emergency or an imminent peril on its channels (`emergency`, Docs/PROTOCOL.md 5.32).
    case emergency
    /// May talk to several channels at once.
    case broadcast
    /// A value from a newer server.
    case unknown(String)

    public static let known: [UserRight] = [.emergency, .broadcast]

    public var rawValue: String {
        switch self {
        case .emergency: "emergency"
        case .broadcast: "broadcast"
        case .unknown(let value): value
        }
    }
}

/// `PUT /api/users/NAME/rights` body: the user's rights from now on (an empty list takes them all away).
public struct UserRightsRequest: Codable, Sendable, Equatable {
    public var rights: [UserRight]
    public init(rights: [UserRight]) { self.rights = rights }
}

/// A channel's emergency in `GET /api/channels/NAME`.
public struct ChannelEmergencyStatus: Codable, Sendable, Equatable {
    public var level: EmergencyGrade
    /// The membership that declared it, and its user (the membership may have ended since).
    public var member: String
    public var user: String
    /// The declaring membership's display name, while it is a member.
    public var name: String?
    /// When it was declared (ISO 8601).
    public var since: String
    public init(level: EmergencyGrade, member: String, user: String, name: String?, since: String) {
        self.level = level
        self.member = member
        self.user = user
        self.name = name
        self.since = since
    }
}
