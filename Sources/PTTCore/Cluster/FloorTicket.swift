/// The number a node gives a floor request it forwards to the channel's owner: the owner's answer names it
/// (`NodeFloorRequest.ticket`, `NodeRequester.ticket` on the node links). Unique per node and run.
public struct FloorTicket: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: FloorTicket, rhs: FloorTicket) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// A floor request another node forwarded to this one, the channel's owner as the sender saw it: whom to answer
/// (the node and its ticket) and who asks.
public struct ForwardedFloorRequest: Hashable, Sendable {
    /// The node that forwarded it, and its ticket.
    public var from: String
    public var ticket: FloorTicket
    /// The member (connected to `from`) who asks for the floor.
    public var member: MemberID
    /// The emergency it asks for the floor to declare, on the forwarding node, which the owner may not have read
    /// yet: the owner ranks the request at its urgency and wakes and records the burst as an emergency's.
    public var emergency: ChannelEmergency?

    public init(from: String, ticket: FloorTicket, member: MemberID, emergency: ChannelEmergency? = nil) {
        self.from = from
        self.ticket = ticket
        self.member = member
        self.emergency = emergency
    }
}

/// Where a channel's floor runs, as a node sees it: where its members' requests and reports go.
public enum FloorRoute: Hashable, Sendable {
    /// This node owns the channel: it runs the floor.
    case here
    /// Another node owns it: requests are forwarded there, releases and talk reports sent there.
    case owner(String)
    /// No node is known to own it (no round named one yet, or this node lost its database): requests wait for a
    /// round.
    case unknown
}
