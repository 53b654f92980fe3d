import PTTCore
import PTTProtocol

extension ControlPlane {
    /// Carries out what the parts decided, in order; an effect that leads to more (a member left: its floor's event)
    /// runs those before the next. The only place where one part's decision reaches another.
    func run(_ effects: [PlaneEffect]) {
        for effect in effects {
            switch effect {
            case .send(let message, let session):
                session.send(message)
            case .broadcast(let message, let members):
                broadcast(message, to: members)
            case .broadcastToChannel(let message, let channel, let excluding):
                broadcast(message, to: channel, excluding: excluding)
            case .requestAnswered(let session):
                storedRequestAnswered(session)
            case .relay(let changes):
                relayLink.send(changes)
            case .floor(let channel, let event):
                run(floors.handle(event, in: channel))
            case .requestFloor(let requester, let channel):
                // In a cluster the ownership decides: here, forwarded to the owner, or held for a round.
                if let cluster {
                    cluster.requestFloor(requester, in: channel)
                } else {
                    run(floors.handle(.request(requester), in: channel))
                }
            case .talkHeard(let member, let channel, let implicit):
                // Another node's floor: the report goes there (or, with no owner known, a round is asked for).
                if cluster?.talkHeard(member, in: channel, implicit: implicit) == true { continue }
                run(floors.handle(.talkHeard(member, implicit: implicit), in: channel))
            case .toOwner(let message, let owner):
                cluster?.sendToOwner(message, owner: owner)
            case .floorEventRan(let channel, let actions, let holder, let requester):
                cluster?.floorEventRan(channel, actions: actions, holder: holder, requester: requester)
            case .floorRemoved(let channel):
                run(floors.remove(channel))
            case .recordBurst(let channel, let speaker):
                run(recordings.burstStarted(in: channel, speaker: speaker))
            case .wakeForBurst(let channel, let speaker):
                // A call's sides are connected, or woken by the call's ring: its bursts wake nobody.
                guard directory.channels[channel]?.kind != .call else {
                    run(calls.burst(in: channel, talking: true))
                    continue
                }
                notifier.burstStarted(in: channel, speaker: speaker)
            case .burstEnded(let channel):
                notifier.burstEnded(in: channel)
                run(calls.burst(in: channel, talking: false))
            case .emergencyForwarded(let declared, let channel):
                emergencies.forwarded(declared, in: channel)
            case .beginBroadcast(let channel, let re, let session):
                run(broadcasts.begin(channel, re: re, session: session))
            case .broadcastFloorLeft(let channel, let member, let event):
                run(broadcasts.floorLeft(channel, by: member, after: event))
            case .leaveBroadcast(let channel):
                run(broadcasts.leave(channel, reason: .preempted))
            case .tellBroadcast(let member, let channel, let session):
                if let event = broadcasts.startedEvent(for: member, in: channel) { run([.send(event, to: session)]) }
            case .broadcastMembersChanged(let channel):
                run(broadcasts.membersChanged(in: channel))
            case .ringCall(let call, let membership):
                notifier.ringCall(call, through: membership)
            case .membershipEnded(let membership, let channel, let reason, let re, let requester):
                run(memberships.ended(membership, in: channel, reason: reason, re: re, requester: requester))
            case .pushLeave(let membership, let reason):
                notifier.sendLeave(to: membership, reason: reason)
            case .replayEnded(let member, let burst, let outcome):
                run(recordings.replayEnded(member, burst: burst, outcome: outcome))
            case .userRemoved(let name):
                signInLinks.userRemoved(name)
                for session in sessions.sessions(ofUser: name) {
                    session.close(with: ErrorFrame(code: .badCredentials, message: "user '\(name)' was removed"))
                }
            }
        }
    }
}
