import Foundation
import TestSupport

@testable import PTTCore

/// An invariant the simulated cluster broke, with the steps that led there.
struct OwnershipWalkFailure: Error, CustomStringConvertible {
    var description: String
}

/// A cluster of 2–4 simulated nodes, each with its own ``ChannelOwnership``, over a simulated database of channel
/// locks (one holder per lock, freed when the holder's session ends) and node links that delay, drop and duplicate
/// messages. Nodes die and restart, lose their database session (and notice it later), reconnect; members ask for
/// floors. Every action a machine returns is carried out as the server would, and the invariants are checked
/// (``checkInvariants()``) after every step.
struct SimulatedCluster {
    typealias Ownership = ChannelOwnership<Int>
    typealias Action = Ownership.Action

    struct Node {
        var name: String
        var incarnation = 0
        var running = true
        var machine: Ownership
        /// Whether the database holds its session (its name and channel locks).
        var session = true
        /// Whether it was told of the loss of its session (``ChannelOwnership/databaseLost(now:)``).
        var noticedLoss = false
        /// Whether a round reached the database since it last lost its session: until then its machine still
        /// thinks it is cut off, though the session may be back (a reconnect waits for the next round to say so).
        var roundSinceLoss = true
        /// The channels its members are in: the locks its rounds try.
        var channels: Set<ChannelID>
        /// The floors it runs, as ``Action/adoptFloor(_:)`` and ``Action/releaseFloor(_:)`` said.
        var floors: Set<ChannelID> = []
        var connected: Bool { running && session }
        /// The database dropped its session and it does not know yet: the one window in which it may still decide a
        /// floor whose lock is gone (a real node's too).
        var unaware: Bool { running && !session && !noticedLoss }
    }

    /// What arrives at a node at some instant.
    enum Delivery {
        case forwarded(ForwardedFloorRequest, ChannelID)
        case floorEvent(ChannelID, from: String, answering: FloorTicket?)
        case refusal(FloorTicket, from: String)
        case round(periodic: Bool)
        case noticeLoss
        case reconnect
        case nodeDown(String)
        case restart
    }

    struct Scheduled {
        var at: PTTInstant
        var order: Int
        var to: String
        /// The run of the node it is for (nil: any; a restart).
        var incarnation: Int?
        var what: Delivery
    }

    enum RequestState: Equatable {
        case waiting(deadline: PTTInstant)
        case forwarded(FloorTicket, deadline: PTTInstant)
        case decided
        case answered(FloorRequestOutcome)
        /// Its node died: its member went with the connection.
        case void
        var isOpen: Bool {
            switch self {
            case .waiting, .forwarded: true
            case .decided, .answered, .void: false
            }
        }
    }

    struct Request {
        var node: String
        var incarnation: Int
        var channel: ChannelID
        var state: RequestState
    }

    /// What the walk went through, to show that it reaches every rule.
    struct Coverage {
        var counts: [String: Int] = [:]
        mutating func saw(_ what: String) { counts[what, default: 0] += 1 }
        subscript(what: String) -> Int { counts[what] ?? 0 }
    }

    let configuration: ChannelOwnershipConfiguration
    let channels: [ChannelID]
    let names: [String]
    var nodes: [String: Node] = [:]
    /// The database's channel locks: the node whose session holds each.
    var locks: [ChannelID: String] = [:]
    var scheduled: [Scheduled] = []
    /// The requests not answered yet (waiting for an owner, or forwarded).
    var requests: [Int: Request] = [:]
    /// How the others ended.
    var closed: [Int: RequestState] = [:]
    var nextRequest = 1
    var nextOrder = 0
    var now = PTTInstant(nanoseconds: 1_000_000_000)
    var rng: SplitMix64
    /// The last steps, rendered only when an invariant breaks.
    var trace: [(at: PTTInstant, line: () -> String)] = []
    var coverage = Coverage()

    static let roundInterval: Duration = .milliseconds(500)

    init(seed: UInt64, nodeCount: Int, channelCount: Int = 3, configuration: ChannelOwnershipConfiguration = .init()) {
        rng = SplitMix64(seed: seed)
        self.configuration = configuration
        channels = (0..<channelCount).map {
            ChannelID(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", $0 + 1))!)
        }
        names = (1...nodeCount).map { "n\($0)" }
        for name in names {
            nodes[name] = Node(
                name: name, machine: Ownership(node: name, configuration: configuration), channels: randomChannels())
            schedule(in: .milliseconds(Int.random(in: 0..<500, using: &rng)), to: name, .round(periodic: true))
        }
    }

    // MARK: Steps

    /// One step: time passes (what is due arrives), something may happen, every machine's timers run, and the
    /// invariants are checked.
    mutating func step(quiet: Bool = false) throws {
        let target = now + .milliseconds(Int.random(in: 1...300, using: &rng))
        try deliver(until: target)
        now = target
        if !quiet { try happen() }
        for name in names where nodes[name]!.running {
            try run(nodes[name]!.machine.timersExpired(now: now), at: name, "timers")
        }
        try checkInvariants()
    }

    /// Something from outside: a member asks for a floor, an owner's floor event, a node dies or loses its database,
    /// members come and go.
    mutating func happen() throws {
        let running = names.filter { nodes[$0]!.running }
        guard let name = running.randomElement(using: &rng) else { return }
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<40:
            guard let channel = nodes[name]!.channels.randomElement(using: &rng) else { return }
            let id = nextRequest
            nextRequest += 1
            requests[id] = Request(
                node: name, incarnation: nodes[name]!.incarnation, channel: channel,
                state: .waiting(deadline: now + configuration.ticketTimeout))
            coverage.saw("request")
            try run(
                nodes[name]!.machine.floorRequested(by: id, member: MemberID("r\(id)"), in: channel, now: now),
                at: name,
                "request r\(id) on \(Self.short(channel))")
        case 40..<48:
            // The owner's floor event for a channel, to a node with members there (no ticket).
            guard let channel = nodes[name]!.machine.ownedChannels.randomElement(using: &rng),
                let peer = running.filter({ $0 != name }).randomElement(using: &rng)
            else { return }
            send(from: name, to: peer, .floorEvent(channel, from: name, answering: nil))
        case 48..<50 where running.count > 1:
            kill(name)
        case 50..<53 where nodes[name]!.session:
            cutSession(of: name)
        case 53..<56:
            nodes[name]!.channels = randomChannels()
            let now = nodes[name]!.channels.map(Self.short).sorted()
            trace("\(name) members now in \(now)")
        default:
            break
        }
    }

    /// Runs what is due up to `target`, in order.
    mutating func deliver(until target: PTTInstant) throws {
        while let next = scheduled.indices.min(by: {
            (scheduled[$0].at, scheduled[$0].order) < (scheduled[$1].at, scheduled[$1].order)
        }),
            scheduled[next].at <= target
        {
            let item = scheduled.remove(at: next)
            now = max(now, item.at)
            try arrive(item)
        }
    }

    mutating func arrive(_ item: Scheduled) throws {
        let name = item.to
        if case .restart = item.what { return restart(name) }
        guard let node = nodes[name], node.running, item.incarnation == node.incarnation else { return }
        switch item.what {
        case .forwarded(let request, let channel):
            try run(
                nodes[name]!.machine.forwardedRequestArrived(request, in: channel, now: now), at: name,
                "forwarded \(request.from)\(request.ticket) on \(Self.short(channel))")
        case .floorEvent(let channel, let peer, let ticket):
            try run(
                nodes[name]!.machine.floorEventArrived(in: channel, from: peer, answering: ticket, now: now), at: name,
                "floor event from \(peer) on \(Self.short(channel)) answering \(ticket.map(\.description) ?? "-")")
        case .refusal(let ticket, let peer):
            try run(
                nodes[name]!.machine.forwardRefused(ticket, by: peer, now: now), at: name,
                "refusal \(ticket) by \(peer)")
        case .round(let periodic):
            if periodic {
                let jitter = Int.random(in: -50...50, using: &rng)
                schedule(in: Self.roundInterval + .milliseconds(jitter), to: name, .round(periodic: true))
            }
            try round(at: name)
        case .noticeLoss:
            guard !node.session, !node.noticedLoss else { return }
            nodes[name]!.noticedLoss = true
            try run(nodes[name]!.machine.databaseLost(now: now), at: name, "database lost")
            schedule(in: .milliseconds(Int.random(in: 200...5000, using: &rng)), to: name, .reconnect)
            if chance(50) {  // its links close: both ends see them go
                for peer in names where peer != name && nodes[peer]!.running {
                    schedule(in: .milliseconds(Int.random(in: 0...200, using: &rng)), to: peer, .nodeDown(name))
                    schedule(in: .milliseconds(Int.random(in: 0...200, using: &rng)), to: name, .nodeDown(peer))
                }
            }
        case .reconnect:
            nodes[name]!.session = true
            nodes[name]!.noticedLoss = false
            trace("\(name) reconnected")
        case .nodeDown(let peer):
            try run(nodes[name]!.machine.nodeDown(peer, now: now), at: name, "node \(peer) down")
        case .restart:
            break
        }
    }

    /// A round of ownership at a node whose session is alive: it takes the free locks of its channels, then reads
    /// the owners of its channels and of those it owns, and the live nodes (`ClusterNode.ownRound`).
    mutating func round(at name: String) throws {
        guard nodes[name]!.connected else { return }
        let node = nodes[name]!
        for channel in node.channels.sorted(by: { $0.description < $1.description }) where locks[channel] == nil {
            locks[channel] = name
        }
        let asked = node.channels.union(locks.filter { $0.value == name }.keys)
        var owners: [ChannelID: String] = [:]
        for channel in asked { owners[channel] = locks[channel] }
        let live = Set(names.filter { nodes[$0]!.connected })
        nodes[name]!.roundSinceLoss = true
        coverage.saw("round")
        try run(
            nodes[name]!.machine.roundRead(owners: owners, liveNodes: live, now: now), at: name,
            "round \(owners.map { "\(Self.short($0.key))=\($0.value)" }.sorted())")
    }

    mutating func kill(_ name: String) {
        trace("\(name) killed")
        coverage.saw("kill")
        nodes[name]!.running = false
        nodes[name]!.session = false
        locks = locks.filter { $0.value != name }
        for (id, request) in requests where request.node == name {
            requests[id] = nil
            closed[id] = .void
        }
        for peer in names where peer != name && nodes[peer]!.running && chance(70) {
            schedule(in: .milliseconds(Int.random(in: 0...1000, using: &rng)), to: peer, .nodeDown(name))
        }
        schedule(in: .milliseconds(Int.random(in: 500...4000, using: &rng)), to: name, .restart, anyRun: true)
    }

    mutating func restart(_ name: String) {
        guard !nodes[name]!.running else { return }
        let incarnation = nodes[name]!.incarnation + 1
        nodes[name] = Node(
            name: name, incarnation: incarnation, machine: Ownership(node: name, configuration: configuration),
            channels: randomChannels())
        trace("\(name) restarted")
        schedule(in: .milliseconds(Int.random(in: 0...100, using: &rng)), to: name, .round(periodic: true))
    }

    /// The database ends the node's session (its locks go); the node notices a moment later.
    mutating func cutSession(of name: String) {
        trace("\(name) cut off from the database")
        coverage.saw("isolation")
        nodes[name]!.session = false
        nodes[name]!.noticedLoss = false
        nodes[name]!.roundSinceLoss = false
        locks = locks.filter { $0.value != name }
        schedule(in: .milliseconds(Int.random(in: 0...800, using: &rng)), to: name, .noticeLoss)
    }

    // MARK: Helpers

    mutating func send(from: String, to peer: String, _ what: Delivery) {
        guard let incarnation = nodes[peer]?.incarnation, chance(96) else { return }  // 4 % lost
        schedule(in: .milliseconds(Int.random(in: 1...150, using: &rng)), to: peer, what, incarnation: incarnation)
        if chance(3) {  // and now and then twice
            schedule(in: .milliseconds(Int.random(in: 1...400, using: &rng)), to: peer, what, incarnation: incarnation)
        }
    }

    mutating func schedule(
        in delay: Duration, to name: String, _ what: Delivery, incarnation: Int? = nil, anyRun: Bool = false
    ) {
        nextOrder += 1
        scheduled.append(
            Scheduled(
                at: now + delay, order: nextOrder, to: name,
                incarnation: anyRun ? nil : (incarnation ?? nodes[name]!.incarnation), what: what))
    }

    mutating func randomChannels() -> Set<ChannelID> { Set(channels.filter { _ in chance(60) }) }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    static func short(_ channel: ChannelID) -> String { "c" + String(channel.description.suffix(1)) }

    mutating func trace(_ line: @autoclosure @escaping () -> String) {
        trace.append((now, line))
        if trace.count > 40 { trace.removeFirst(trace.count - 40) }
    }

    func require(_ condition: Bool, _ what: @autoclosure () -> String) throws {
        if !condition { throw failure(what()) }
    }

    func failure(_ what: String) -> OwnershipWalkFailure {
        OwnershipWalkFailure(
            description: "at \(now): \(what)\nlast steps:\n"
                + trace.map { "\($0.at) \($0.line())" }.joined(separator: "\n"))
    }
}
