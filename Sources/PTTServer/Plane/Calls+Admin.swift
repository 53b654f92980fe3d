import Foundation
import PTTCore
import PTTProtocol

/// What operators see and do with private calls (`GET /api/calls`, `DELETE /api/calls/ID`), and the calls a start
/// finds stored.
extension Calls {
    /// Every call that rings, is held or is connected, oldest first.
    func list() -> [CallStatus] {
        infos.values.sorted { ($0.since, $0.id) < ($1.since, $1.id) }.compactMap { info in
            guard let id = ChannelID(string: info.id) else { return nil }
            let since = Date(timeIntervalSince1970: Double(info.since) / 1000).iso8601
            let phase: CallPhase
            var talking: Bool?
            if let connected = book.connected[id] {
                phase = .connected
                talking = connected.talking
            } else if let ringing = book.ringing[id] {
                phase = ringing.held ? .held : .ringing
            } else {
                return nil
            }
            return CallStatus(
                id: info.id, caller: info.caller.user, callerName: info.caller.name, callee: info.callee, phase: phase,
                since: since, talking: talking)
        }
    }

    /// An operator ends a call: both sides get `call-ended` `operator`, and a connected call's channel goes.
    func endByOperator(_ call: String) throws(AdminError) {
        guard let id = ChannelID(string: call), infos[id] != nil else {
            throw AdminError(.notFound, "no call '\(call)' rings or is connected")
        }
        plane.run(run(book.endByOperator(id)))
        armTimer()
    }

    /// At start: each stored call channel is a connected call again (its oldest member is the caller; silence is
    /// counted from now), and one that lost a side is removed.
    /// In a cluster each node runs the calls placed on it, and a starting node cannot tell which stored ones were
    /// its own: it leaves them (Docs/CLUSTER.md, Limits).
    func restore() {
        guard plane.cluster == nil else { return }
        let directory = plane.directory
        for channel in directory.channels.values where channel.kind == .call {
            let sides = directory.members(of: channel.id)
            guard sides.count == 2 else {
                plane.logger.notice("a stored call lost a side: removed", metadata: ["call": "\(channel.id)"])
                plane.run(removeChannel(channel.id))
                continue
            }
            infos[channel.id] = CallInfo(
                id: channel.id.description, caller: MemberInfo(sides[0]), callee: sides[1].user,
                since: PushFrames.milliseconds(channel.createdAt))
            book.restored(channel.id, caller: sides[0].user, callee: sides[1].user, now: context.clock.now())
        }
        if !infos.isEmpty {
            plane.logger.info("calls connected before the restart", metadata: ["calls": "\(infos.count)"])
        }
        armTimer()
    }
}
