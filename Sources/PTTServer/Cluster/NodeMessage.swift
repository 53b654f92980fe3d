import Foundation
import PTTCore
import PTTProtocol

/// What one node says to another on their node link (Docs/CLUSTER.md, "Node links"): JSON objects with a `type`,
/// in the control protocol's frames (a 4-byte big-endian length, then the JSON).
enum NodeMessage: Sendable, Equatable {
    /// The first message each way: who speaks, to whom, and (from the node that opened the link) the pair's media
    /// key.
    case hello(NodeHello)
    /// Sent every ``NodeLinkHandler/heartbeatInterval`` when nothing else was: a link that says nothing for three
    /// intervals is closed.
    case heartbeat
    /// The channels the sender has members connected in (the owner sends their audio there), and which of their
    /// members its relay hears; sent when either changed, at most every round of ownership.
    case listening(NodeListening)
    /// To a channel's owner: a member connected to the sender asks for the floor; the answer names `ticket`.
    case floorRequest(NodeFloorRequest)
    /// To a channel's owner: a member connected to the sender releases the floor (or leaves its queue).
    case floorRelease(NodeFloorMember)
    /// To a channel's owner: the sender's relay heard a member talk (restarts T1; an implicit request on an idle
    /// floor when `implicit`).
    case talkHeard(NodeTalkHeard)
    /// To a channel's owner: an operator revoked the floor through the sender's admin API.
    case floorRevoke(NodeFloorChannel)
    /// From a channel's owner to every node: what one floor event did (the actions, the new holder and state).
    case floorEvent(NodeFloorEvent)
    /// From a channel's owner to the node that holds a member's Local Push connection: write this wake there.
    case wake(NodeWake)
    /// To the node that forwarded a `floor-request`: the sender does not run the channel's floor (one of the two
    /// views of who owns what is behind); `owner` names the owner the sender knows. The request is answered
    /// `unavailable` at once there, and a round of ownership is asked for.
    case floorRefused(NodeFloorRefused)
    /// A message of a type this version does not know (from a newer node): skipped, so that a node that learned a
    /// new message keeps its links to the ones that did not.
    case unknown(String)

    /// Each message's `type` on the wire, written once.
    enum Kind: String, CaseIterable, Sendable {
        case hello
        case heartbeat
        case listening
        case floorRequest = "floor-request"
        case floorRelease = "floor-release"
        case talkHeard = "talk-heard"
        case floorRevoke = "floor-revoke"
        case floorEvent = "floor-event"
        case wake
        case floorRefused = "floor-refused"
    }

    /// The message's `type` on the wire.
    var type: String { kind?.rawValue ?? { if case .unknown(let type) = self { type } else { "" } }() }

    /// Nil for a message of a type this version does not know.
    var kind: Kind? {
        switch self {
        case .hello: .hello
        case .heartbeat: .heartbeat
        case .listening: .listening
        case .floorRequest: .floorRequest
        case .floorRelease: .floorRelease
        case .talkHeard: .talkHeard
        case .floorRevoke: .floorRevoke
        case .floorEvent: .floorEvent
        case .wake: .wake
        case .floorRefused: .floorRefused
        case .unknown: nil
        }
    }
}

struct NodeFloorRefused: Codable, Sendable, Equatable {
    var channel: ChannelID
    /// The ticket of the request refused, as its node gave it.
    var ticket: UInt64
    /// Who owns the channel, as the refusing node knows it.
    var owner: String?
}

struct NodeHello: Codable, Sendable, Equatable {
    /// The sender's node name, and the node it means to reach.
    var node: String
    var to: String
    /// The pair's SRTP master key and salt (hex) and its suite: only from the node that opened the link.
    var mediaKey: String?
    var mediaSuite: String?
}

struct NodeListening: Codable, Sendable, Equatable {
    var channels: [ChannelID]
    /// The members of those channels the sender's relay hears now: the owner does not wake them, and every node
    /// shows them reachable.
    var reachable: [MemberID]?
    /// The members of those channels whose device's Local Push extension holds a `push-provider` connection to the
    /// sender: the owner wakes them through it.
    var pushProviders: [MemberID]?
}

struct NodeWake: Codable, Sendable, Equatable {
    var member: MemberID
    /// The `push` frame, as the owner made it.
    var frame: PushFrame
    /// How long the wake may still wait to be written, in milliseconds.
    var deadlineMs: Int
    var burst: String?
}

struct NodeFloorRequest: Codable, Sendable, Equatable {
    var channel: ChannelID
    var member: MemberID
    var ticket: UInt64
    /// The emergency the member declares with this request (``NodeEmergency``); absent for an ordinary request,
    /// and from a node of an earlier version.
    var emergency: NodeEmergency?
}

/// An emergency declared on the node that forwards its declarer's floor request, not yet stored when it was sent:
/// the owner ranks the request at its urgency and wakes and records the burst as an emergency's. Its member is the
/// request's.
struct NodeEmergency: Codable, Sendable, Equatable {
    /// ``EmergencyLevel``'s raw value: one this node does not know makes the request an ordinary one.
    var level: String
    var user: String
    /// Seconds since 1970, as stored.
    var since: Double

    init(_ emergency: ChannelEmergency) {
        level = emergency.level.rawValue
        user = emergency.user
        since = emergency.since.timeIntervalSince1970
    }

    /// The declaration, for `member`; nil for a level this node does not know.
    func declaration(by member: MemberID) -> ChannelEmergency? {
        ChannelEmergency.stored(level: level, member: member.rawValue, user: user, since: since)
    }
}

struct NodeFloorMember: Codable, Sendable, Equatable {
    var channel: ChannelID
    var member: MemberID
}

struct NodeTalkHeard: Codable, Sendable, Equatable {
    var channel: ChannelID
    var member: MemberID
    var implicit: Bool
}

struct NodeFloorChannel: Codable, Sendable, Equatable {
    var channel: ChannelID
}

struct NodeFloorEvent: Codable, Sendable, Equatable {
    var channel: ChannelID
    var holder: MemberID?
    var actions: [FloorAction]
    /// The floor as `joined` shows it, after the event.
    var state: FloorState
    /// The request this event answers, when a node forwarded one: its node and ticket, and the member who asked.
    var requester: NodeRequester?
    /// Set when the holder let go of the floor and it went idle: that member's late packets are still forwarded for
    /// a moment on every node (the release grace, Docs/PROTOCOL.md 7.5). Absent from older nodes: no grace there.
    var releasedBy: MemberID? = nil
}

struct NodeRequester: Codable, Sendable, Equatable {
    var node: String
    var ticket: UInt64
    var member: MemberID
}

extension NodeMessage: Codable {
    private enum TypeKey: String, CodingKey { case type }

    init(from decoder: Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
        guard let kind = Kind(rawValue: type) else {
            self = .unknown(type)
            return
        }
        switch kind {
        case .hello: self = .hello(try NodeHello(from: decoder))
        case .heartbeat: self = .heartbeat
        case .listening: self = .listening(try NodeListening(from: decoder))
        case .floorRequest: self = .floorRequest(try NodeFloorRequest(from: decoder))
        case .floorRelease: self = .floorRelease(try NodeFloorMember(from: decoder))
        case .talkHeard: self = .talkHeard(try NodeTalkHeard(from: decoder))
        case .floorRevoke: self = .floorRevoke(try NodeFloorChannel(from: decoder))
        case .floorEvent: self = .floorEvent(try NodeFloorEvent(from: decoder))
        case .wake: self = .wake(try NodeWake(from: decoder))
        case .floorRefused: self = .floorRefused(try NodeFloorRefused(from: decoder))
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let body): try body.encode(to: encoder)
        case .heartbeat: break
        case .listening(let body): try body.encode(to: encoder)
        case .floorRequest(let body): try body.encode(to: encoder)
        case .floorRelease(let body): try body.encode(to: encoder)
        case .talkHeard(let body): try body.encode(to: encoder)
        case .floorRevoke(let body): try body.encode(to: encoder)
        case .floorEvent(let body): try body.encode(to: encoder)
        case .wake(let body): try body.encode(to: encoder)
        case .floorRefused(let body): try body.encode(to: encoder)
        case .unknown: break
        }
    }
}
