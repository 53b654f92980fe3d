import Foundation
import PTTCore
import PTTProtocol

extension EmergencyGrade {
    /// A stored level as the protocol spells it.
    init(_ level: EmergencyLevel) {
        switch level {
        case .emergency: self = .emergency
        case .imminentPeril: self = .imminentPeril
        }
    }

    /// The level this grade asks for; nil for one this version does not know.
    var level: EmergencyLevel? {
        switch self {
        case .emergency: .emergency
        case .imminentPeril: .imminentPeril
        case .unknown: nil
        }
    }
}

extension EmergencyState {
    /// A channel's emergency as members see it. A declarer whose membership has ended since is shown by its user.
    init(_ emergency: ChannelEmergency, in directory: ChannelDirectory) {
        let member =
            directory.memberships[emergency.member].map(MemberInfo.init)
            ?? MemberInfo(
                id: emergency.member.rawValue, name: emergency.user, user: emergency.user, priority: 0,
                receiveOnly: false)
        self.init(
            level: EmergencyGrade(emergency.level), member: member,
            since: PushFrames.milliseconds(emergency.since))
    }
}

extension UserRights {
    /// The rights an admin request lists; a right this version does not know is refused by the caller.
    init(_ rights: [UserRight]) {
        self = []
        for right in rights {
            switch right {
            case .emergency: insert(.emergency)
            case .broadcast: insert(.broadcast)
            case .unknown: break
            }
        }
    }

    /// The rights as the admin API lists them.
    var listed: [UserRight] {
        UserRight.known.filter { contains(UserRights([$0])) }
    }
}
