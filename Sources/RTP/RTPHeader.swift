/// The header of an RTP packet (RFC 3550 §5.1), version 2 only.
///
/// A value describes a packet; it does not hold the CSRC list or extension bytes, which stay in the
/// packet (read CSRCs with ``csrc(at:in:)``). Parse with ``parse(_:validatingPadding:)``, write with
/// ``write(into:marker:payloadType:sequenceNumber:timestamp:ssrc:csrc:)``, patch a packet in place
/// with ``rewrite(_:sequenceNumber:timestamp:ssrc:marker:)``. None of these allocate.
///
/// ```
///  0                   1                   2                   3
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// |                           timestamp                           |
/// |           synchronization source (SSRC) identifier            |
/// |            contributing source (CSRC) identifiers × CC        |
/// |  extension profile (if X)     |  extension length in words    |
/// ```
public struct RTPHeader: Sendable, Equatable {
    /// The only RTP version this type understands.
    public static let version: UInt8 = 2

    /// Length of the fixed header, without CSRCs or extension.
    public static let fixedLength = 12

    /// The P bit: the packet ends with padding whose last byte is the pad count.
    public var padding: Bool
    /// The X bit: a header extension follows the CSRC list.
    public var hasExtension: Bool
    /// Number of CSRC identifiers after the fixed header (0...15).
    public var csrcCount: Int
    /// The M bit; for Opus (RFC 7587) set on the first packet of a talk spurt.
    public var marker: Bool
    /// The 7-bit payload type.
    public var payloadType: UInt8
    /// Sequence number, +1 per packet, wrapping.
    public var sequenceNumber: UInt16
    /// Media timestamp (48 kHz for Opus).
    public var timestamp: UInt32
    /// Synchronisation source.
    public var ssrc: UInt32
    /// The extension's 16-bit profile-defined field (0 when there is no extension).
    public var extensionProfile: UInt16
    /// Length in bytes of the extension body, excluding its 4-byte header (0 when none).
    public var extensionLength: Int
    /// Bytes of padding at the end of the packet, pad-count byte included (0 when none or unchecked).
    public var paddingLength: Int

    /// Creates a header description. The defaults describe a plain header: no padding, extension
    /// or CSRCs.
    public init(
        padding: Bool = false,
        hasExtension: Bool = false,
        csrcCount: Int = 0,
        marker: Bool = false,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        extensionProfile: UInt16 = 0,
        extensionLength: Int = 0,
        paddingLength: Int = 0
    ) {
        self.padding = padding
        self.hasExtension = hasExtension
        self.csrcCount = csrcCount
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.extensionProfile = extensionProfile
        self.extensionLength = extensionLength
        self.paddingLength = paddingLength
    }

    /// Where the payload starts: 12 + 4·CC, plus the extension (4-byte header + body) if present.
    public var headerLength: Int {
        Self.fixedLength + 4 * csrcCount + (hasExtension ? 4 + extensionLength : 0)
    }

    /// The payload's byte range in a packet of `packetLength` bytes: after the header, before any
    /// padding. Pass the length of the packet this header was parsed from; the range is clamped so
    /// it is never inverted.
    public func payloadRange(packetLength: Int) -> Range<Int> {
        let start = min(headerLength, packetLength)
        let end = max(start, packetLength - paddingLength)
        return start..<end
    }

    /// The CSRC at `index` (0 ..< ``csrcCount``) of the packet this header was parsed from.
    public func csrc(at index: Int, in packet: UnsafeRawBufferPointer) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        precondition(packet.count >= Self.fixedLength + 4 * csrcCount, "packet shorter than its CSRC list")
        return packet.rtpUInt32(at: Self.fixedLength + 4 * index)
    }

    /// The CSRC at `index` (0 ..< ``csrcCount``) of the packet this header was parsed from.
    public func csrc(at index: Int, in packet: [UInt8]) -> UInt32 {
        packet.withUnsafeBytes { csrc(at: index, in: $0) }
    }
}
