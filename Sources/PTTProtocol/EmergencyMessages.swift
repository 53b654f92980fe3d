/// How grave a declared emergency is: `emergency.level` (Docs/PROTOCOL.md 5.32).
public enum EmergencyGrade: WireValue {
    /// Someone needs help now: the declarer's floor requests take the floor at once from anyone.
    case emergency
    /// Danger ahead: above every ordinary priority, below an emergency.
    case imminentPeril
    /// A value from a newer server or client.
    case unknown(String)

    public static let known: [EmergencyGrade] = [.emergency, .imminentPeril]

    public var rawValue: String {
        switch self {
        case .emergency: "emergency"
        case .imminentPeril: "imminent-peril"
        case .unknown(let value): value
        }
    }
}

/// Who ended an emergency: `emergency-cleared.by` (Docs/PROTOCOL.md 5.35).
public enum EmergencyClearer: WireValue {
    /// The user who declared it (from any of its devices).
    case declarer
    /// An operator, through the admin API (`pttctl emergency clear`).
    case `operator`
    /// A value from a newer server.
    case unknown(String)

    public static let known: [EmergencyClearer] = [.declarer, .`operator`]

    public var rawValue: String {
        switch self {
        case .declarer: "declarer"
        case .`operator`: "operator"
        case .unknown(let value): value
        }
    }
}

/// `emergency`: declare an emergency (or an imminent peril) on a channel and take its floor at once.
public struct EmergencyRequest: Codable, Sendable, Equatable {
    public var id: Int?
    public var channel: String
    /// Absent: `emergency`.
    public var level: EmergencyGrade?
    public init(id: Int? = nil, channel: String, level: EmergencyGrade? = nil) {
        self.id = id
        self.channel = channel
        self.level = level
    }
}

/// `emergency-clear`: end the emergency its user declared on a channel.
public struct EmergencyClear: Codable, Sendable, Equatable {
    public var id: Int?
    public var channel: String
    public init(id: Int? = nil, channel: String) {
        self.id = id
        self.channel = channel
    }
}

/// A channel's emergency as members see it: in `joined` and in `emergency-declared`.
public struct EmergencyState: Codable, Sendable, Equatable {
    public var level: EmergencyGrade
    /// The member who declared it (its display name and user).
    public var member: MemberInfo
    /// When it was declared, in milliseconds since 1970.
    public var since: Int64
    public init(level: EmergencyGrade, member: MemberInfo, since: Int64) {
        self.level = level
        self.member = member
        self.since = since
    }
}

/// `emergency-declared`: a channel is in emergency (to every member; with `re` to the declaring connection).
public struct EmergencyDeclared: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public var emergency: EmergencyState
    public init(re: Int? = nil, channel: ChannelInfo, emergency: EmergencyState) {
        self.re = re
        self.channel = channel
        self.emergency = emergency
    }
}

/// `emergency-cleared`: a channel's emergency is over (to every member; with `re` to the clearing connection).
public struct EmergencyCleared: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public var by: EmergencyClearer
    /// Who cleared it: the declarer's display name, or `operator`.
    public var name: String
    public init(re: Int? = nil, channel: ChannelInfo, by: EmergencyClearer, name: String) {
        self.re = re
        self.channel = channel
        self.by = by
        self.name = name
    }
}
