import Foundation
import NIOCore
import PTTCore
import PTTProtocol

/// Emergencies (Docs/PROTOCOL.md 5.32–5.35): a member whose user has the emergency right declares one on its
/// channel; the state is stored with the channel, every member is told, and the declarer takes the floor at once
/// (``Floors`` ranks its requests by the emergency's ``FloorUrgency``). While it holds, bursts are recorded and their
/// wakes say so (``Notifier``). It ends only when its declarer's user or an operator clears it.
final class Emergencies {
    private unowned let plane: ControlPlane
    /// Declarations whose floor was taken at once and that are not stored yet, by channel: their burst is woken and
    /// recorded as an emergency's, like one stored.
    private var pending: [ChannelID: ChannelEmergency] = [:]
    /// Declarations another node forwarded with their floor request to this node, the channel's owner, before this
    /// node read them stored: held until it does, or ``forwardedHold`` if it never does (the other node could not
    /// store it).
    private var heldForOtherNodes: [ChannelID: ChannelEmergency] = [:]
    static let forwardedHold: TimeAmount = .seconds(30)

    init(plane: ControlPlane) {
        self.plane = plane
    }

    /// A channel's emergency: the stored one, or a declaration on its way to storage (here or on another node).
    func emergency(of channel: PTTCore.Channel) -> ChannelEmergency? {
        channel.emergency ?? pending[channel.id] ?? heldForOtherNodes[channel.id]
    }

    /// A declaration came with a floor request another node forwarded: its burst is woken and recorded as an
    /// emergency's until the stored one is read.
    func forwarded(_ emergency: ChannelEmergency, in channel: ChannelID) {
        guard plane.directory.channels[channel]?.emergency == nil else { return }
        heldForOtherNodes[channel] = emergency
        plane.eventLoop.scheduleTask(in: Self.forwardedHold) {
            if self.heldForOtherNodes[channel] == emergency { self.heldForOtherNodes[channel] = nil }
        }
    }

    /// This node read a channel another node stored (``ControlPlane/followStoredDirectory()``): its members here are
    /// told of an emergency declared or raised there, or cleared there, as they would be had it been here.
    func followed(_ channel: PTTCore.Channel, before: PTTCore.Channel?) -> [PlaneEffect] {
        if channel.emergency != nil { heldForOtherNodes[channel.id] = nil }
        guard let before, before.emergency != channel.emergency else { return [] }
        let info = ChannelInfo(channel)
        if let emergency = channel.emergency {
            let state = EmergencyState(emergency, in: plane.directory)
            let event = ControlMessage.emergencyDeclared(EmergencyDeclared(channel: info, emergency: state))
            return [.broadcastToChannel(event, channel.id, excluding: emergency.member)]
        }
        let clearing = channel.emergencyCleared ?? .byOperator
        let clearer: EmergencyClearer = clearing.by == .declarer ? .declarer : .operator
        let event = ControlMessage.emergencyCleared(EmergencyCleared(channel: info, by: clearer, name: clearing.name))
        return [.broadcastToChannel(event, channel.id, excluding: nil)]
    }

    private var context: PlaneContext { plane.context }

    /// `emergency`: the declarer asks for the floor at once, at the emergency's urgency, when the directory as it
    /// stands allows the declaration (the floor does not wait for the disk); the state is stored in its turn, then
    /// answered with `emergency-declared` and told to every other member. A declaration the directory does not
    /// allow yet (a right given by a write still queued) asks for the floor once stored. Declaring again raises
    /// or lowers the level (the same `since`).
    func declare(_ request: EmergencyRequest, device: SessionTable.DeviceKey, from session: ControlSession) {
        guard let level = (request.level ?? .emergency).level else {
            let message = "unknown emergency level '\(request.level?.rawValue ?? "")': emergency or imminent-peril"
            return plane.run([.error(session, re: request.id, .badRequest, message), .requestAnswered(session)])
        }
        // One `since` for the pending declaration and the stored one: the wakes of its burst carry the first.
        let now = context.wallClock.now()
        let fast = askFloorAtOnce(level, device: device, channel: request.channel, session: session, now: now)
        let refusal = refusal(session, re: request.id, storing: "emergency")
        let refused: (any Error) -> Void = { error in
            if let fast { self.pending[fast] = nil }
            refusal(error)
        }
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    let (channel, membership) = try device.membership(in: request.channel, of: directory)
                    let emergency = try Self.plan(level, by: membership, in: channel, directory: directory, now: now)
                    var updated = channel
                    updated.emergency = emergency
                    let changes: [DirectoryChange] = updated == channel ? [] : [.putChannel(updated)]
                    directory.apply(changes)
                    return PlannedChange(
                        changes: changes,
                        stored: {
                            if let fast { self.pending[fast] = nil }
                            self.plane.run(
                                self.declared(
                                    emergency, in: updated, by: membership, changed: !changes.isEmpty, re: request.id,
                                    session: session, floorAsked: fast != nil))
                        }, failed: refused)
                }, refused: refused))
    }

    /// Asks for the floor at the emergency's urgency if the directory as it stands allows the declaration, and
    /// holds the declaration as pending until it is stored; the channel if it did. Storing it can still fail (a
    /// full disk): the declarer then keeps the floor it took, and is told that the emergency was not declared.
    private func askFloorAtOnce(
        _ level: EmergencyLevel, device: SessionTable.DeviceKey, channel name: String, session: ControlSession,
        now: Date
    ) -> ChannelID? {
        let directory = plane.directory
        guard let (channel, membership) = try? device.membership(in: name, of: directory),
            let emergency = try? Self.plan(level, by: membership, in: channel, directory: directory, now: now)
        else { return nil }
        if channel.emergency == nil { pending[channel.id] = emergency }
        let requester = Floors.Requester(member: membership.id, session: session, emergency: emergency)
        plane.run([.requestFloor(requester, in: channel.id)])
        return channel.id
    }

    /// The emergency a member declares: refused without the right, from a receive-only member (it could not take
    /// the floor), and on a channel whose emergency another user declared.
    private static func plan(
        _ level: EmergencyLevel, by membership: Membership, in channel: PTTCore.Channel, directory: ChannelDirectory,
        now: Date
    ) throws -> ChannelEmergency {
        guard directory.users[membership.user]?.rights.contains(.emergency) == true else {
            throw JoinPlan.Refusal(
                code: .notPermitted,
                message: "user '\(membership.user)' may not declare an emergency: an operator gives the right "
                    + "(pttctl user rights \(membership.user) emergency)")
        }
        guard !membership.receiveOnly else {
            throw JoinPlan.Refusal(
                code: .badRequest, message: "a receive-only member cannot take the floor to declare an emergency")
        }
        if let held = channel.emergency, held.user != membership.user {
            throw JoinPlan.Refusal(
                code: .channelBusy,
                message: "'\(channel.name)' is already in \(held.level.rawValue), declared by \(held.user)")
        }
        return ChannelEmergency(
            level: level, member: membership.id, user: membership.user, since: channel.emergency?.since ?? now)
    }

    /// A declaration is stored: the declarer's connection is answered, the declarer asks for the floor (unless it
    /// did at once), which its urgency takes at once, and then the other members are told (when it changed
    /// anything).
    private func declared(
        _ emergency: ChannelEmergency, in channel: PTTCore.Channel, by membership: Membership, changed: Bool, re: Int?,
        session: ControlSession, floorAsked: Bool
    ) -> [PlaneEffect] {
        let state = EmergencyState(emergency, in: plane.directory)
        let info = ChannelInfo(channel)
        // The floor first (when it was not asked for on arrival): its grant is what the declarer waits for, and
        // telling a thousand members before it would queue the grant behind their writes on the event loops.
        var effects: [PlaneEffect] = [
            .send(.emergencyDeclared(EmergencyDeclared(re: re, channel: info, emergency: state)), to: session)
        ]
        if !floorAsked {
            effects.append(.requestFloor(Floors.Requester(member: membership.id, session: session), in: channel.id))
        }
        if changed {
            context.metrics.channels.emergencyDeclared(emergency.level)
            plane.logger.warning(
                "emergency declared",
                metadata: [
                    "channel": "\(channel.name)", "level": "\(emergency.level.rawValue)", "member": "\(membership.id)",
                    "user": "\(membership.user)",
                ])
            effects.append(
                .broadcastToChannel(
                    .emergencyDeclared(EmergencyDeclared(channel: info, emergency: state)), channel.id,
                    excluding: membership.id))
        }
        effects.append(.requestAnswered(session))
        return effects
    }

    /// How a request that waited for storage is answered when refused or failed.
    private func refusal(_ session: ControlSession, re: Int?, storing what: String) -> (any Error) -> Void {
        { error in
            self.plane.run(PlaneEffect.refused(session, re: re, error, storing: what, storage: self.plane.storage))
        }
    }

    /// `emergency-clear`: only the declarer's user may clear it this way (an operator clears any).
    func clear(_ request: EmergencyClear, device: SessionTable.DeviceKey, from session: ControlSession) {
        let refused = refusal(session, re: request.id, storing: "change")
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    let (channel, membership) = try device.membership(in: request.channel, of: directory)
                    guard let ended = channel.emergency else {
                        throw JoinPlan.Refusal(code: .badRequest, message: "'\(channel.name)' is not in emergency")
                    }
                    guard ended.user == membership.user else {
                        throw JoinPlan.Refusal(
                            code: .notPermitted,
                            message: "only \(ended.user), who declared it, or an operator can clear the emergency "
                                + "on '\(channel.name)'")
                    }
                    var updated = channel
                    updated.emergency = nil
                    updated.emergencyCleared = EmergencyClearing(by: .declarer, name: membership.displayName)
                    directory.apply(.putChannel(updated))
                    return PlannedChange(
                        changes: [.putChannel(updated)],
                        stored: {
                            self.plane.run(
                                self.cleared(
                                    ended, in: updated, by: .declarer, name: membership.displayName, re: request.id,
                                    session: session) + [.requestAnswered(session)])
                        }, failed: refused)
                }, refused: refused))
    }

    /// `DELETE /api/channels/NAME/emergency`: an operator ends a channel's emergency, whoever declared it.
    func clearByOperator(_ reference: String) -> EventLoopFuture<Void> {
        plane.writes.change { directory throws(AdminError) in
            let channel = try AdminOperations.channel(reference, in: directory)
            guard let ended = channel.emergency else {
                throw AdminError(.conflict, "'\(channel.name)' is not in emergency")
            }
            var updated = channel
            updated.emergency = nil
            updated.emergencyCleared = .byOperator
            return (
                [.putChannel(updated)],
                { self.plane.run(self.cleared(ended, in: updated, by: .operator, name: "operator")) }
            )
        }
    }

    /// An emergency ended and that is stored: every member is told (the clearing connection with `re`).
    private func cleared(
        _ ended: ChannelEmergency, in channel: PTTCore.Channel, by clearer: EmergencyClearer, name: String,
        re: Int? = nil,
        session: ControlSession? = nil
    ) -> [PlaneEffect] {
        context.metrics.channels.emergencyCleared(by: clearer == .operator ? .operator : .declarer)
        plane.logger.warning(
            "emergency cleared",
            metadata: [
                "channel": "\(channel.name)", "level": "\(ended.level.rawValue)", "declaredBy": "\(ended.user)",
                "by": "\(clearer.rawValue)", "name": "\(name)",
            ])
        let info = ChannelInfo(channel)
        let event = ControlMessage.emergencyCleared(EmergencyCleared(channel: info, by: clearer, name: name))
        guard let session else { return [.broadcast(event, to: plane.directory.members(of: channel.id))] }
        let answer = ControlMessage.emergencyCleared(EmergencyCleared(re: re, channel: info, by: clearer, name: name))
        let others = plane.directory.members(of: channel.id).filter { plane.sessions.appSession(of: $0) !== session }
        return [.send(answer, to: session), .broadcast(event, to: others)]
    }
}
