import PTTCore
import PTTProtocol
import PTTRelay

/// What a part of the plane decided should happen, for the plane to carry out (``ControlPlane/run(_:)``).
///
/// The parts (``Memberships``, ``Floors``, ``RelayLink``, ``Recordings``, ``AdminOperations``) read the plane's
/// state and return effects; none of them calls another to make something happen. A request is followed from
/// ``ControlPlane`` to the part that decides it and back to `run`, the one place where one part's decision reaches
/// another. Effects run in order, and an effect's own effects run before the next one (a floor event's relay change,
/// recording and frames come in the order the event made them).
enum PlaneEffect {
    /// A frame to one connection.
    case send(ControlMessage, to: ControlSession)
    /// A frame to the app sessions of these members, encoded once.
    case broadcast(ControlMessage, to: [Membership])
    /// A frame to the app sessions of a channel's members (but `excluding`), looked up when it runs rather than when
    /// it is decided: a thousand members' lookups then come after the frames before it (a floor grant) are sent.
    case broadcastToChannel(ControlMessage, ChannelID, excluding: MemberID? = nil)
    /// A request that waited for storage is answered: its connection reads on (``ControlPlane/storedRequestAnswered(_:)``).
    case requestAnswered(ControlSession)
    /// Changes for the audio relay.
    case relay([RelayChange])

    /// A floor event on a channel whose floor runs on this node (elsewhere it does nothing).
    case floor(ChannelID, FloorEvent)
    /// A member asks for a channel's floor: decided here, or in a cluster by the channel's owner.
    case requestFloor(Floors.Requester, in: ChannelID)
    /// The relay heard a member talk: the floor's owner (this node, or another node of a cluster) learns it.
    case talkHeard(MemberID, in: ChannelID, implicit: Bool)
    /// A message about a channel for the node that runs its floor.
    case toOwner(NodeMessage, owner: String)
    /// A floor event ran here: the cluster's other nodes learn it.
    case floorEventRan(ChannelID, actions: [FloorAction], holder: MemberID?, requester: Floors.Requester?)
    /// A deleted channel's floor and timer go.
    case floorRemoved(ChannelID)

    /// A member took the floor: its burst is recorded if the channel is.
    case recordBurst(ChannelID, speaker: MemberID)
    /// A talk burst starts: members that cannot hear it are woken.
    case wakeForBurst(ChannelID, speaker: MemberID)
    /// A talk burst ended: wakes still waiting for it are withdrawn.
    case burstEnded(ChannelID)

    /// A membership ended and that is stored: its floor, its sessions and the other members learn it.
    case membershipEnded(Membership, in: Channel, reason: LeaveReason, re: Int? = nil, requester: ControlSession? = nil)
    /// A floor request another node forwarded came with an emergency's declaration (``Emergencies``).
    case emergencyForwarded(ChannelEmergency, in: ChannelID)
    /// A broadcast whose sender asked for its floor begins, if the sender holds it now (``Broadcasts``).
    case beginBroadcast(ChannelID, re: Int?, session: ControlSession)
    /// The floor of `channel` left `member` after `event`: a broadcast it sent from there ends.
    case broadcastFloorLeft(ChannelID, MemberID, after: FloorEvent)
    /// An emergency takes a channel a broadcast holds: the channel leaves the broadcast.
    case leaveBroadcast(ChannelID)
    /// A member joined `channel`: told right after its `joined` of a broadcast that holds the channel, if one does.
    case tellBroadcast(MemberID, in: ChannelID, session: ControlSession)
    /// A membership of `channel` began or ended: a broadcast holding it decides again who hears it once.
    case broadcastMembersChanged(ChannelID)
    /// A private call rings a device whose app is not connected: one wake through this membership's route.
    case ringCall(CallInfo, Membership)
    /// A member whose app is not connected learns with a push that its membership ended.
    case pushLeave(Membership, LeaveReason)
    /// A user was removed: its sign-in credentials go and its connections close.
    case userRemoved(String)
    /// The relay finished playing a recorded burst to a member: its app learns how it ended.
    case replayEnded(MemberID, burst: Int64, outcome: PlaybackOutcome)

    /// An error answer to one request.
    static func error(_ session: ControlSession, re: Int?, _ code: ErrorCode, _ message: String) -> PlaneEffect {
        .send(.error(ErrorFrame(re: re, code: code, message: message)), to: session)
    }
}

/// What happens to a channel's floor: each case is one call into the pure ``FloorControl``.
enum FloorEvent {
    case request(Floors.Requester)
    case release(MemberID)
    /// A member was heard talking: T1 restarts for the holder; on an idle floor, an implicit request when `implicit`.
    case talkHeard(MemberID, implicit: Bool)
    case memberLeft(MemberID)
    /// An operator revokes the floor.
    case revoke
    /// A broadcast that starts takes the floor from its holder (``FloorRevokeCause/broadcast``).
    case giveWayToBroadcast
    /// The floor's timer fired.
    case timersExpired
}
