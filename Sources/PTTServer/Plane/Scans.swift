import PTTCore
import PTTProtocol
import PTTRelay

/// Scan lists (Docs/PROTOCOL.md 5.45–5.47): a device that is a member of several channels lists some of them,
/// highest priority first, and hears one burst at a time, the highest-priority one in progress; the relay does the
/// hearing (``RelayScans``) and reports each switch (`scan-switched`, through ``RelayLink``). Talking is unchanged: a
/// member talks on the channel whose floor it asks for. A list lives in memory, per device, until the device
/// changes it or the server restarts (a client sends it again when it reconnects).
final class Scans {
    private unowned let plane: ControlPlane
    /// Each scanning device's list, as its memberships.
    private(set) var lists: [SessionTable.DeviceKey: [MemberID]] = [:]

    init(plane: ControlPlane) {
        self.plane = plane
    }

    /// `scan`: each channel must be one of this device's memberships, at most 16, each once; the relay is told and
    /// the list answered (`scan-set`); a `scan-switched` follows when a listed channel has a burst now.
    func set(_ request: ScanRequest, device: SessionTable.DeviceKey, from session: ControlSession) -> [PlaneEffect] {
        guard plane.cluster == nil else {
            return [
                .error(
                    session, re: request.id, .unavailable,
                    "scan lists run on a single server for now, not across a cluster (Docs/CLUSTER.md)")
            ]
        }
        guard request.channels.count <= ScanRequest.maxChannels else {
            return [
                .error(
                    session, re: request.id, .badRequest,
                    "a scan list holds at most \(ScanRequest.maxChannels) channels, not \(request.channels.count)")
            ]
        }
        let resume = request.resume ?? .live
        guard resume == .live || resume == .catchUp else {
            return [.error(session, re: request.id, .badRequest, "unknown resume '\(resume)': live or catch-up")]
        }
        var channels: [PTTCore.Channel] = []
        var members: [MemberID] = []
        for reference in request.channels {
            let channel: PTTCore.Channel
            let membership: Membership
            do { (channel, membership) = try device.membership(in: reference, of: plane.directory) } catch {
                return [.error(session, re: request.id, error.code, error.message)]
            }
            guard !members.contains(membership.id) else {
                return [.error(session, re: request.id, .badRequest, "'\(channel.name)' is in the scan list twice")]
            }
            channels.append(channel)
            members.append(membership.id)
        }
        lists[device] = members.isEmpty ? nil : members
        plane.context.metrics.scans.lists.set(Double(lists.count))
        plane.logger.info(
            "scan list set",
            metadata: [
                "user": "\(device.user)", "device": "\(device.device)",
                "channels": "\(channels.map(\.name).joined(separator: ","))", "resume": "\(resume.rawValue)",
            ])
        return [
            .send(
                .scanSet(ScanSet(re: request.id, channels: channels.map(ChannelInfo.init), resume: resume)), to: session
            ),
            .relay([.scan(device: Self.relayKey(device), members, catchUp: resume == .catchUp)]),
        ]
    }

    /// A membership's place in its device's scan list (1: highest), nil when not scanned.
    func rank(of membership: Membership) -> Int? {
        lists[SessionTable.DeviceKey(membership)]?.firstIndex(of: membership.id).map { $0 + 1 }
    }

    /// The key the relay knows a device's list by.
    static func relayKey(_ device: SessionTable.DeviceKey) -> String { device.user + "\u{0}" + device.device }
}
