/// Why the relay dropped a datagram (the `reason` label of `ptt_media_packets_dropped_total`).
public enum RelayDropReason: String, CaseIterable, Sendable {
    /// Too short, or not RTP/RTCP.
    case malformed
    /// No member sends with this SSRC.
    case unknownSSRC = "unknown-ssrc"
    /// The SRTP tag did not verify, or the packet was replayed.
    case authentication
    /// Not the Opus payload type.
    case payloadType = "payload-type"
    /// The payload is not a valid Opus packet.
    case opus
    /// The sender does not hold the floor.
    case notFloorHolder = "not-floor-holder"
    /// The sender joined to listen only.
    case receiveOnly = "receive-only"
    /// A listener's copy could not be protected (counted per copy).
    case protectFailed = "protect-failed"
    /// The socket reported an error (e.g. ICMP port unreachable for one peer).
    case socketError = "socket-error"
}
