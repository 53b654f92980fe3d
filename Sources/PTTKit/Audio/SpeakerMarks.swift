import PTTProtocol

/// Names the speaker of each packet heard. The floor events say who talks, and the relay's packets carry the
/// speaker's SSRC as their CSRC. The two travel apart (control over TCP, audio over UDP): a burst's last packets can
/// come after its `floor-idle`, or after the next speaker's `floor-taken`. So the first packet heard under a speaker
/// ties that speaker to its SSRC, and a later packet with that SSRC keeps the name, whatever the floor says by then.
struct SpeakerMarks {
    /// Who holds the floor, as the last floor event said.
    private var current: MemberInfo?
    /// The speaker SSRCs heard, with who they were, most recent last (at most ``remembered``).
    private var known: [(ssrc: UInt32, member: MemberInfo)] = []
    /// How many speakers are remembered: late packets only ever come from the last one or two.
    static let remembered = 4

    /// A floor event: `member` holds the floor now, or nobody does (`nil`).
    mutating func floor(_ member: MemberInfo?) { current = member }

    /// The speaker of a packet that carries `speakerSSRC` (its CSRC), heard now.
    mutating func mark(speakerSSRC: UInt32?) -> MemberInfo? {
        guard let ssrc = speakerSSRC else { return current }
        if let tie = known.last(where: { $0.ssrc == ssrc }) { return tie.member }
        guard let current else { return nil }
        known.removeAll { $0.member.id == current.id }
        known.append((ssrc, current))
        if known.count > Self.remembered { known.removeFirst() }
        return current
    }
}
