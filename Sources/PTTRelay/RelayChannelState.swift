import NIOCore
import PTTCore

/// The relay's state for one channel, on the relay's event loop.
struct RelayChannelState {
    let channel: ChannelID
    /// The member allowed to send, if any.
    private(set) var holder: MemberID?
    /// The former holder whose late packets are still forwarded after its release, and until when (nil: none).
    private(set) var lateAudio: LateAudio?
    /// The holder's SSRC, for the per-packet check.
    private(set) var holderSSRC: UInt32?
    /// Every member, for the fan-out loop (no lookups per listener). Order is not meaningful.
    private(set) var members: [RelayMember] = []
    /// Where each member is in `members`, so a leave costs O(1).
    private var index: [MemberID: Int] = [:]
    /// Timestamp mapping shared by every listener: out = in &+ offset during a burst.
    var timestampOffset: UInt32 = 0
    /// The SSRC that sent the current burst.
    var burstSSRC: UInt32?
    var lastOutTimestamp: UInt32 = 0
    var lastOutTime: NIODeadline?
    /// Counts holder changes: a burst, and the members woken for it, belong to one generation.
    private(set) var generation: UInt64 = 0
    /// The current burst's kept packets (when bursts are kept), from its first packet on.
    var burst: BurstBuffer?
    /// The recording the burst of floor generation `generation` goes to.
    var recording: (key: UInt64, generation: UInt64)?
    /// The channel's links to other nodes of a cluster (``RelayChannelLinks``): empty outside a cluster.
    var links: [RelayMember] = []
    /// The node that owns the channel, when another does: only its link's copies are taken, and copies that
    /// arrive from a link go no further.
    var linkOwner: String?

    init(channel: ChannelID) {
        self.channel = channel
    }

    var isEmpty: Bool { members.isEmpty && links.isEmpty }

    /// Adds a member, or puts `member` in the place of the one with the same id.
    mutating func put(_ member: RelayMember) {
        if let at = index[member.config.id] {
            members[at] = member
        } else {
            index[member.config.id] = members.count
            members.append(member)
        }
        if member.config.id == holder { holderSSRC = member.config.ssrc }
    }

    /// Removes a member; the floor is no longer theirs on the relay.
    mutating func remove(_ id: MemberID) {
        guard let at = index.removeValue(forKey: id) else { return }
        let last = members.count - 1
        if at != last {
            members.swapAt(at, last)
            index[members[at].config.id] = at
        }
        members.removeLast()
        if holder == id { setHolder(nil) }
    }

    func member(_ id: MemberID) -> RelayMember? {
        index[id].map { members[$0] }
    }

    /// Who may send now. Ends a release's grace: what comes after it is a new burst.
    mutating func setHolder(_ id: MemberID?) {
        if id != holder { generation &+= 1 }
        holder = id
        holderSSRC = id.flatMap { member($0)?.config.ssrc }
        if holderSSRC == nil || lateAudio != nil { burstSSRC = nil }
        lateAudio = nil
    }

    /// The holder released the floor: it is idle, but the member's packets until `until` are late ones of the same
    /// burst (same timeline, no marker, kept with it).
    mutating func release(by id: MemberID, until: NIODeadline) {
        guard id == holder, let ssrc = holderSSRC else { return setHolder(nil) }
        let speaking = burstSSRC
        setHolder(nil)
        burstSSRC = speaking
        lateAudio = LateAudio(ssrc: ssrc, until: until)
    }

    /// The grace of a release is over (if it is the one that ends at `until`): the burst ends.
    mutating func endLateAudio(until: NIODeadline) {
        guard lateAudio?.until == until else { return }
        lateAudio = nil
        burstSSRC = nil
    }

    /// Where a burst starting now begins on the timeline: the last timestamp sent plus the wall-clock time since
    /// (at least one 20 ms frame); 0 for the channel's first.
    func nextBurstTimestamp(now: NIODeadline) -> UInt32 {
        guard let lastOutTime else { return lastOutTimestamp }
        let elapsed = max(0, (now - lastOutTime).nanoseconds)
        return lastOutTimestamp &+ UInt32(truncatingIfNeeded: max(960, elapsed / 1_000_000 * 48))
    }

    /// The kept burst, once it no longer belongs to the floor's generation (the holder changed): the channel lets
    /// go of it.
    mutating func takeEndedBurst() -> BurstBuffer? {
        guard let burst, lateAudio?.ssrc != burst.speakerSSRC, burst.generation != generation || holder == nil else {
            return nil
        }
        self.burst = nil
        return burst
    }

    /// Maps an incoming timestamp into the channel's continuous timeline. Starts a new burst when the
    /// speaker changed or the floor was idle: the timeline then advances with wall-clock time since the last
    /// packet sent (at least one 20 ms frame), so receivers see real gaps. Returns the timestamp and whether
    /// it starts a burst.
    mutating func mapTimestamp(_ incoming: UInt32, from ssrc: UInt32, now: NIODeadline) -> (UInt32, startsBurst: Bool) {
        var starts = false
        if burstSSRC != ssrc {
            starts = true
            burstSSRC = ssrc
            timestampOffset = nextBurstTimestamp(now: now) &- incoming
        }
        let out = incoming &+ timestampOffset
        lastOutTimestamp = out
        lastOutTime = now
        return (out, starts)
    }
}

/// A former holder's late packets, forwarded after its release until `until` (``FloorControl/releaseGrace``).
struct LateAudio: Equatable {
    var ssrc: UInt32
    var until: NIODeadline
}
