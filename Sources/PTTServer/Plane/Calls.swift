import Foundation
import NIOCore
import PTTCore
import PTTProtocol

/// Private calls (Docs/CALLS-DESIGN.md): one member rings one user; the callee's devices are told or woken, one
/// accepts, and the two talk on a call channel of their own (its own floor, keys and recording), which nobody else
/// can hear. The pure ``CallBook`` decides; this part turns its actions into frames, wakes and directory writes.
final class Calls {
    unowned let plane: ControlPlane
    var book: CallBook
    /// What each call is, as the sides see it, while it rings or is connected.
    var infos: [ChannelID: CallInfo] = [:]
    private var timer: Scheduled<Void>?

    init(plane: ControlPlane) {
        self.plane = plane
        book = CallBook(configuration: plane.context.configuration.calls)
    }

    var context: PlaneContext { plane.context }

    /// `call`: rings `request.user` from this device's membership (`from`, or its newest).
    func place(_ request: CallRequest, device: SessionTable.DeviceKey, from session: ControlSession) -> [PlaneEffect] {
        let directory = plane.directory
        let own = directory.memberships(user: device.user, device: device.device).filter {
            directory.channels[$0.channel]?.kind == .group
        }
        let caller: Membership?
        if let from = request.from {
            caller = (try? device.membership(in: from, of: directory))?.1
        } else {
            caller = own.last
        }
        guard let caller else {
            return [.error(session, re: request.id, .notAMember, "join a channel first: a call is placed from one")]
        }
        guard directory.users[request.user] != nil else {
            return [.error(session, re: request.id, .badRequest, "no user '\(request.user)'")]
        }
        let calleeMemberships = directory.memberships.values.filter {
            $0.user == request.user && directory.channels[$0.channel]?.kind == .group
        }
        if !book.configuration.anyone {
            let mine = Set(directory.memberships.values.filter { $0.user == device.user }.map(\.channel))
            guard calleeMemberships.contains(where: { mine.contains($0.channel) }) else {
                return [
                    .error(
                        session, re: request.id, .notPermitted,
                        "'\(request.user)' shares no channel with you: calls are to members of your channels")
                ]
            }
        }
        let busyChannels = Set(plane.floors.holders.map { $0.0 })
        let calleeBusy = calleeMemberships.contains { busyChannels.contains($0.channel) }
        let id = ChannelID()
        let info = CallInfo(
            id: id.description, caller: MemberInfo(caller), callee: request.user,
            since: PushFrames.milliseconds(context.wallClock.now()))
        let actions = book.place(
            id, caller: caller.id, callerUser: device.user, callee: request.user, calleeBusy: calleeBusy,
            now: context.clock.now())
        var effects: [PlaneEffect] = []
        for action in actions {
            switch action {
            case .refuse(let refusal):
                effects.append(.error(session, re: request.id, Self.code(refusal), Self.message(refusal, request.user)))
            case .ring, .hold:
                infos[id] = info
                effects.append(.send(.callRinging(CallRinging(re: request.id, call: info)), to: session))
                effects += run([action])
            case .connect, .end:
                effects += run([action])
            }
        }
        armTimer()
        if effects.contains(where: { if case .send(.callRinging, _) = $0 { true } else { false } }) {
            context.metrics.calls.placed.increment()
            plane.logger.info(
                "call placed", metadata: ["call": "\(id)", "from": "\(device.user)", "to": "\(request.user)"])
        }
        return effects
    }

    /// `call-accept`, `call-decline`, `call-hangup` from a device of a side.
    func command(
        _ kind: ControlMessage.Kind, _ command: CallCommand, device: SessionTable.DeviceKey,
        from session: ControlSession
    ) -> [PlaneEffect] {
        guard let id = ChannelID(string: command.call), infos[id] != nil else {
            return [.error(session, re: command.id, .badRequest, "no call '\(command.call)' rings or is connected")]
        }
        let actions: [CallAction]
        switch kind {
        case .callAccept: actions = book.accept(id, by: device.user, device: device.device, now: context.clock.now())
        case .callDecline: actions = book.decline(id, by: device.user)
        default: actions = book.hangUp(id, by: device.user)
        }
        guard !actions.isEmpty else {
            return [
                .error(
                    session, re: command.id, .badRequest, "'\(command.call)': \(kind.rawValue) is not yours to send now"
                )
            ]
        }
        armTimer()
        return run(actions, re: command.id, answering: session)
    }

    /// A burst began or ended on a channel: a call's silence counts from the end of its last burst; a callee whose
    /// burst ended is rung for the calls held for it.
    ///
    /// A call's side that the relay does not hear yet when a burst begins (its media opens as the call connects,
    /// and the caller may talk at once) is marked woken for it, as a woken member is: the relay catches it up from the
    /// burst's first packet once it is heard, so no word of the call is lost to that race.
    func burst(in channel: ChannelID, talking: Bool) -> [PlaneEffect] {
        if book.connected[channel] != nil {
            book.burst(channel, talking: talking, now: context.clock.now())
            armTimer()
            guard talking else { return [] }
            let unheard = plane.directory.members(of: channel).map(\.id).filter {
                !plane.relayLink.heardAnywhere($0)
            }
            return unheard.isEmpty ? [] : [.relay([.woken(channel, unheard)])]
        }
        guard !talking, book.ringing.values.contains(where: \.held) else { return [] }
        let users = Set(plane.directory.members(of: channel).map(\.user))
        var effects: [PlaneEffect] = []
        for user in users where book.ringing.values.contains(where: { $0.callee == user && $0.held }) {
            effects += run(book.calleeFree(user))
        }
        return effects
    }

    /// The timer fired: calls that rang out or fell silent end.
    private func timersExpired() {
        plane.run(run(book.timersExpired(now: context.clock.now())))
        armTimer()
    }

    func armTimer() {
        timer?.cancel()
        timer = nil
        guard let deadline = book.nextDeadline else { return }
        let now = context.clock.now()
        let wait = deadline > now ? Int64(deadline.nanoseconds - now.nanoseconds) : 0
        timer = plane.eventLoop.scheduleTask(in: .nanoseconds(wait)) { [weak self] in self?.timersExpired() }
    }

    /// Turns the book's actions into effects; `re` and `answering`: the command being answered.
    func run(_ actions: [CallAction], re: Int? = nil, answering session: ControlSession? = nil) -> [PlaneEffect] {
        var effects: [PlaneEffect] = []
        for action in actions {
            switch action {
            case .ring(let call, let waiting):
                effects += ring(call, waiting: waiting)
            case .hold:
                continue  // rung when the callee's burst ends (``burst(in:talking:)``)
            case .refuse:
                continue  // answered by ``place(_:device:from:)``
            case .connect(let call, let device):
                connect(call, calleeDevice: device, re: re, session: session)
            case .end(let id, let reason, let by):
                effects += end(id, reason: reason, by: by, re: re, answering: session)
            }
        }
        return effects
    }
}
