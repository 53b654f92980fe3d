/// Why an RTCP packet could not be written.
public enum RTCPWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination holds `available` bytes; `needed` are required.
    case bufferTooSmall(needed: Int, available: Int)
    /// A CNAME must be 1–255 bytes of UTF-8 (RFC 3550 §6.5).
    case invalidCNAMELength(Int)

    public var description: String {
        switch self {
        case let .bufferTooSmall(needed, available):
            "RTCP buffer too small: \(needed) bytes needed, \(available) available"
        case let .invalidCNAMELength(length):
            "RTCP CNAME must be 1–255 bytes, got \(length)"
        }
    }
}
