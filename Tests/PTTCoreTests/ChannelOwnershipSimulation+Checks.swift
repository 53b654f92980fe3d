import Foundation

@testable import PTTCore

/// The simulated cluster carries out what each machine returns, as the server would, and checks the invariants.
extension SimulatedCluster {
    // MARK: Carrying out actions

    mutating func run(_ actions: [Action], at name: String, _ event: @autoclosure @escaping () -> String) throws {
        if !actions.isEmpty || event() != "timers" { trace("\(name): \(event()) -> \(actions)") }
        for action in actions { try carryOut(action, at: name) }
    }

    mutating func carryOut(_ action: Action, at name: String) throws {
        switch action {
        case .decideLocally(let channel, let id):
            try decided(channel, at: name, "decideLocally")
            try settle(id, at: name, .decided, allowedFrom: [.waiting])
            coverage.saw("decideLocally")
        case .decideForwarded(let channel, let request):
            try decided(channel, at: name, "decideForwarded")
            coverage.saw("decideForwarded")
            // The owner's floor answers with a floor event for the forwarder (unless its floor ignores the request).
            if chance(95) {
                send(from: name, to: request.from, .floorEvent(channel, from: name, answering: request.ticket))
            }
        case .forward(let ticket, let channel, let member, let owner):
            guard let id = Int(member.rawValue.dropFirst()), let request = requests[id] else {
                throw failure("forward of an unknown request \(member)")
            }
            try require(request.node == name && request.channel == channel, "forward of another node's request r\(id)")
            try require(owner != name, "a node forwarded a request to itself")
            guard case .waiting = request.state else { throw failure("r\(id) forwarded while \(request.state)") }
            requests[id]!.state = .forwarded(ticket, deadline: now + configuration.ticketTimeout)
            coverage.saw("forward")
            if !(nodes[owner]?.running ?? false) || chance(5) {
                // The link to the owner is down: the send fails at once, or what was written is lost with the link.
                if chance(50) {
                    try run(
                        nodes[name]!.machine.forwardUndelivered(ticket, now: now), at: name, "undelivered \(ticket)")
                }
            } else {
                send(
                    from: name, to: owner,
                    .forwarded(ForwardedFloorRequest(from: name, ticket: ticket, member: member), channel))
            }
        case .refuse(let request, let channel, _):
            try require(!nodes[name]!.machine.ownsFloor(of: channel), "\(name) refused a floor it owns")
            coverage.saw("refuse")
            // Half the time the refusal is only logged, as today's server does.
            if chance(50) { send(from: name, to: request.from, .refusal(request.ticket, from: name)) }
        case .answer(let id, let outcome):
            switch outcome {
            case .answeredBy: try settle(id, at: name, .answered(outcome), allowedFrom: [.forwarded])
            case .ownerUnreachable, .noOwner, .refused:
                try settle(id, at: name, .answered(outcome), allowedFrom: [.waiting, .forwarded])
            }
            coverage.saw("answer \(outcome)".split(separator: "(").first.map(String.init) ?? "answer")
        case .ownerChanged(_, let from, let to):
            try require(from != to, "an owner change that changes nothing")
            if from != nil, to == name { coverage.saw("failover") }
        case .adoptFloor(let channel):
            try require(nodes[name]!.floors.insert(channel).inserted, "\(name) adopted \(Self.short(channel)) twice")
            try require(nodes[name]!.machine.ownsFloor(of: channel), "\(name) adopted a floor it does not own")
        case .releaseFloor(let channel):
            try require(
                nodes[name]!.floors.remove(channel) != nil, "\(name) released \(Self.short(channel)) it did not run")
        case .askRound:
            schedule(in: .milliseconds(Int.random(in: 0...100, using: &rng)), to: name, .round(periodic: false))
        case .sendMembersElsewhere(let others):
            try require(
                !nodes[name]!.roundSinceLoss,
                "\(name) sent members away though a round reached the database since it lost it")
            try require(!others.contains(name), "\(name) sent its members to itself")
            coverage.saw("sendMembersElsewhere")
        }
    }

    enum Stage { case waiting, forwarded }

    /// A request is answered: it must be open, at the node that holds it, in one of these stages.
    mutating func settle(_ id: Int, at name: String, _ state: RequestState, allowedFrom stages: Set<Stage>) throws {
        guard let request = requests[id] else {
            throw failure(
                "r\(id) answered \(state) after \(closed[id].map { "\($0)" } ?? "nothing"): twice, or unknown")
        }
        try require(
            request.node == name && request.incarnation == nodes[name]!.incarnation, "r\(id) answered by \(name)")
        switch request.state {
        case .waiting where stages.contains(.waiting), .forwarded where stages.contains(.forwarded):
            requests[id] = nil
            closed[id] = state
        default:
            throw failure("r\(id) answered \(state) while \(request.state): answered twice, or out of turn")
        }
    }

    /// Invariant 1: a node decides only a floor it owns in its current view, and the database agrees (its session
    /// holds the channel's lock), unless the database has just dropped it and it does not know yet.
    mutating func decided(_ channel: ChannelID, at name: String, _ how: String) throws {
        let node = nodes[name]!
        try require(
            node.machine.ownsFloor(of: channel), "\(name) \(how) on \(Self.short(channel)), which it does not own")
        try require(
            node.floors.contains(channel), "\(name) \(how) on \(Self.short(channel)) without adopting its floor")
        try require(
            locks[channel] == name || node.unaware,
            "\(name) \(how) on \(Self.short(channel)), whose lock is \(locks[channel] ?? "free")")
    }

    // MARK: Invariants

    func checkInvariants() throws {
        for channel in channels {
            // Invariant 2: two nodes connected to the database never both think they own a channel.
            let owners = names.filter { nodes[$0]!.connected && nodes[$0]!.machine.ownsFloor(of: channel) }
            try require(owners.count <= 1, "\(owners) all think they own \(Self.short(channel))")
        }
        for name in names where nodes[name]!.running {
            let node = nodes[name]!
            try require(
                node.floors == node.machine.ownedChannels,
                "\(name) runs \(node.floors) but owns \(node.machine.ownedChannels)")
            // Invariant 3: nothing waits past its deadline (timers ran at `now`), and the machine holds exactly the
            // requests that are open: none dropped unanswered.
            let open = requests.filter { $0.value.node == name }
            var waiting = 0
            var forwarded = 0
            for (id, request) in open {
                switch request.state {
                case .waiting(let deadline):
                    waiting += 1
                    try require(deadline > now, "r\(id) still waits for an owner after its deadline")
                    try require(
                        (node.machine.nextDeadline ?? .zero) <= deadline && node.machine.nextDeadline != nil,
                        "\(name)'s timer is not armed for r\(id)")
                case .forwarded(let ticket, let deadline):
                    forwarded += 1
                    try require(deadline > now, "r\(id) (\(ticket)) still unanswered after its deadline")
                    try require(
                        (node.machine.nextDeadline ?? .zero) <= deadline && node.machine.nextDeadline != nil,
                        "\(name)'s timer is not armed for r\(id)")
                default: break
                }
            }
            try require(
                node.machine.waitingRequests == waiting,
                "\(name) holds \(node.machine.waitingRequests) waiting, \(waiting) open")
            try require(
                node.machine.pendingTickets == forwarded,
                "\(name) holds \(node.machine.pendingTickets) tickets, \(forwarded) open")
        }
    }

    /// Every request of a running node has been answered (after a quiet time longer than any timeout).
    func checkAllAnswered() throws {
        for (id, request) in requests.sorted(by: { $0.key < $1.key }) {
            throw failure("r\(id) at \(request.node) never answered: \(request.state)")
        }
    }
}
