import Foundation
import PTTCore
import PTTProtocol

/// The control plane's live sessions: every open connection, and for each device and role the one that said
/// hello last (an older one is replaced), with when each device last answered a heartbeat.
struct SessionTable {
    /// A device of a user.
    struct DeviceKey: Hashable {
        var user: String
        var device: String

        init(user: String, device: String) {
            self.user = user
            self.device = device
        }

        init(_ membership: Membership) {
            self.init(user: membership.user, device: membership.device)
        }
    }

    /// At most one live session per device and role.
    struct SessionKey: Hashable {
        var device: DeviceKey
        var role: ClientRole
    }

    /// An open connection, and its device and role once its hello succeeded.
    struct Record {
        var session: ControlSession
        var key: SessionKey?
    }

    private(set) var records: [UInt64: Record] = [:]
    private var current: [SessionKey: UInt64] = [:]
    private(set) var lastHeartbeat: [DeviceKey: Date] = [:]

    /// A connection opened.
    mutating func opened(_ session: ControlSession) {
        records[session.id] = Record(session: session, key: nil)
    }

    /// A connection closed. Returns its key when it was its device's current session for its role.
    mutating func closed(_ session: ControlSession) -> SessionKey? {
        guard let record = records.removeValue(forKey: session.id) else { return nil }
        guard let key = record.key, current[key] == session.id else { return nil }
        current[key] = nil
        return key
    }

    /// The device and role of an open session: nil before its hello succeeded.
    func key(of session: ControlSession) -> SessionKey? { records[session.id]?.key }

    /// Whether a connection is open (its close not yet handled).
    func isOpen(_ session: ControlSession) -> Bool { records[session.id] != nil }

    /// A session's hello succeeded: it becomes its device's session for its role. Returns the session it replaces.
    mutating func authenticate(_ session: ControlSession, as key: SessionKey, at now: Date) -> ControlSession? {
        var replaced: ControlSession?
        if let staleID = current[key], staleID != session.id, let stale = records[staleID] {
            records[staleID]?.key = nil
            replaced = stale.session
        }
        records[session.id]?.key = key
        current[key] = session.id
        lastHeartbeat[key.device] = now
        return replaced
    }

    /// A session answered a heartbeat.
    mutating func heartbeat(from session: ControlSession, at now: Date) {
        if let key = records[session.id]?.key { lastHeartbeat[key.device] = now }
    }

    /// The current session of a device in a role.
    func session(of device: DeviceKey, role: ClientRole) -> ControlSession? {
        current[SessionKey(device: device, role: role)].flatMap { records[$0]?.session }
    }

    /// The app session of a member's device, if connected.
    func appSession(of membership: Membership) -> ControlSession? { session(of: DeviceKey(membership), role: .app) }

    /// The live push-provider (Local Push extension) session of a member's device.
    func pushProviderSession(of membership: Membership) -> ControlSession? {
        session(of: DeviceKey(membership), role: .pushProvider)
    }

    /// Every current session of a member's device.
    func allSessions(of membership: Membership) -> [ControlSession] {
        ClientRole.allCases.compactMap { session(of: DeviceKey(membership), role: $0) }
    }

    /// The roles a device is connected in.
    func liveRoles(of device: DeviceKey) -> [ClientRole] {
        ClientRole.allCases.filter { current[SessionKey(device: device, role: $0)] != nil }
    }

    /// Every current session of a user's devices.
    func sessions(ofUser user: String) -> [ControlSession] {
        current.compactMap { key, id in key.device.user == user ? records[id]?.session : nil }
    }
}
