/// Walking and validating compound RTCP packets (RFC 3550 §6.1 and the checks of Appendix A.2).
public enum RTCPCompound {
    /// Calls `body` with the header and bytes of each RTCP packet in the compound `bytes`, in order,
    /// after validating the whole compound (see ``validate(_:requireReportFirst:)``), so `body` never
    /// sees a partial result of malformed input. Does not allocate.
    public static func forEachPacket(
        in bytes: UnsafeRawBufferPointer,
        requireReportFirst: Bool = true,
        _ body: (RTCPHeader, UnsafeRawBufferPointer) -> Void
    ) throws(RTCPParseError) {
        _ = try validate(bytes, requireReportFirst: requireReportFirst)
        var offset = 0
        while offset < bytes.count {
            let packet = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            // Validated above, so this cannot fail.
            guard let header = try? RTCPHeader.parse(packet) else { return }
            body(header, UnsafeRawBufferPointer(rebasing: packet[..<header.packetLength]))
            offset += header.packetLength
        }
    }

    /// Validates a compound RTCP packet and returns how many packets it holds:
    /// every packet parses (version 2, type 192–223, length within the data), the lengths add up
    /// exactly to `bytes.count`, only the last packet may carry padding (with a pad count of
    /// 1 ... its body length), and, if `requireReportFirst`, the first packet is an SR or RR.
    /// Does not allocate.
    public static func validate(
        _ bytes: UnsafeRawBufferPointer,
        requireReportFirst: Bool = true
    ) throws(RTCPParseError) -> Int {
        guard !bytes.isEmpty else { throw .tooShort }
        var offset = 0
        var packets = 0
        while offset < bytes.count {
            let packet = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let header = try RTCPHeader.parse(packet)
            if packets == 0, requireReportFirst,
                header.packetType != .senderReport, header.packetType != .receiverReport
            {
                throw .firstPacketNotReport(header.packetType.rawValue)
            }
            let end = offset + header.packetLength
            if header.padding {
                guard end == bytes.count else { throw .badPadding }
                let padCount = Int(bytes[end - 1])
                guard padCount >= 1, padCount <= header.packetLength - RTCPHeader.commonLength else {
                    throw .badPadding
                }
            }
            offset = end
            packets += 1
        }
        return packets
    }

    /// Validates a compound RTCP packet. See the `UnsafeRawBufferPointer` overload.
    public static func validate(_ bytes: [UInt8], requireReportFirst: Bool = true) throws(RTCPParseError) -> Int {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTCPParseError) in try validate(raw, requireReportFirst: requireReportFirst) }
        }
        return try result.get()
    }

    /// The headers of the packets in a compound, after validation. A convenience for tests and
    /// tools; allocates.
    public static func headers(_ bytes: [UInt8], requireReportFirst: Bool = true) throws(RTCPParseError) -> [RTCPHeader]
    {
        var headers: [RTCPHeader] = []
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTCPParseError) in
                try forEachPacket(in: raw, requireReportFirst: requireReportFirst) { header, _ in headers.append(header)
                }
            }
        }
        try result.get()
        return headers
    }
}
