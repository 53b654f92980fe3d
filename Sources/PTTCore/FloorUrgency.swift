/// How urgent a floor request is (issue 25: the protocol request that declares one comes with it).
///
/// An ordinary request ranks by its member's priority. A request during an emergency or an imminent peril that
/// its member declared ranks above every ordinary priority (an emergency above an imminent peril), and takes a
/// floor held at a lower urgency at once: the holder is revoked with ``FloorRevokeCause/emergency`` and no
/// pre-emption grace (T3) runs. A broadcast's sender (``broadcast``) ranks between the ordinary and an imminent
/// peril, and revokes with ``FloorRevokeCause/broadcast``. Between requests of the same urgency the ordinary rules
/// apply: priority, the queue, T3.
public enum FloorUrgency: Int, Sendable, Comparable, CaseIterable {
    case ordinary = 0
    /// A broadcast's sender in its own channel (MCPTT broadcast group call): above every ordinary priority, below
    /// an imminent peril.
    case broadcast = 1
    /// Imminent peril (3GPP TS 23.379): above every ordinary priority and a broadcast, below an emergency.
    case imminentPeril = 2
    /// An emergency (3GPP TS 23.379 emergency group call): above everything.
    case emergency = 3

    public static func < (a: FloorUrgency, b: FloorUrgency) -> Bool { a.rawValue < b.rawValue }

    /// Where this urgency's band of ranks starts: a member's priority (-1000...1000) falls inside it, so the bands
    /// never overlap.
    var rankOffset: Int { rawValue * 10_000 }
}
