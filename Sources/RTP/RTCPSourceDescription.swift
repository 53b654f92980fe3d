/// Reading the CNAME out of an SDES packet (RFC 3550 §6.5).
public enum RTCPSourceDescription {
    /// The CNAME text of the first chunk of the SDES packet `packet` (one packet, as handed out by
    /// ``RTCPCompound/forEachPacket(in:requireReportFirst:_:)``), or nil if the packet is not an SDES,
    /// has no chunk, or its first chunk has no CNAME or is malformed. The result points into
    /// `packet`; does not allocate.
    public static func firstCNAME(in packet: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let header = try? RTCPHeader.parse(packet),
            header.packetType == .sourceDescription, header.count >= 1
        else { return nil }
        let end = header.packetLength
        var offset = 8  // after header and the first chunk's SSRC
        while offset < end {
            let type = packet[offset]
            if type == 0 { return nil }  // END: chunk over without a CNAME
            guard offset + 2 <= end else { return nil }
            let length = Int(packet[offset + 1])
            let text = offset + 2
            guard text + length <= end else { return nil }
            if type == 1 { return UnsafeRawBufferPointer(rebasing: packet[text..<text + length]) }
            offset = text + length
        }
        return nil
    }

    /// The CNAME of the first chunk of the SDES packet `packet`, decoded as UTF-8. A convenience
    /// for tests and tools; allocates.
    public static func firstCNAME(in packet: [UInt8]) -> String? {
        packet.withUnsafeBytes { raw in
            firstCNAME(in: raw).map { String(decoding: $0, as: UTF8.self) }
        }
    }
}
