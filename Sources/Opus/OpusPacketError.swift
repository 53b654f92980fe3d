/// Why `OpusPacket.validate` rejected a packet.
public enum OpusPacketError: Error, CustomStringConvertible, Equatable, Hashable, Sendable {
    /// The packet has no bytes. (A lost packet is not a packet; Opus needs at least the TOC byte.)
    case empty
    /// The packet's framing violates RFC 6716 §3; carries libopus's error.
    case malformed(OpusError)
    /// The packet claims more than 120 ms of audio; `samples` is the claimed count at 48 kHz.
    case tooLong(samples: Int)

    public var description: String {
        switch self {
        case .empty:
            "empty Opus packet"
        case .malformed(let error):
            "malformed Opus packet: \(error.message)" + (error.context.map { " (\($0))" } ?? "")
        case .tooLong(let samples):
            "Opus packet too long: \(samples) samples at 48 kHz (\(samples / 48) ms) exceeds 120 ms"
        }
    }
}
