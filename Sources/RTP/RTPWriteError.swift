/// Why an RTP header could not be written.
public enum RTPWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination holds `available` bytes; `needed` are required.
    case bufferTooSmall(needed: Int, available: Int)
    /// The payload type is above 127, or in 64–95 where, with rtcp-mux (RFC 5761 §4), it would be
    /// mistaken for RTCP.
    case invalidPayloadType(UInt8)

    public var description: String {
        switch self {
        case let .bufferTooSmall(needed, available):
            "RTP buffer too small: \(needed) bytes needed, \(available) available"
        case let .invalidPayloadType(pt):
            "RTP payload type \(pt) is invalid (must be 0–127 and outside 64–95 for rtcp-mux)"
        }
    }
}
