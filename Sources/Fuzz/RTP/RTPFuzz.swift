import RTP

/// RTP and RTCP parsing: any datagram is parsed both ways, as a relay would on a muxed port, and
/// whatever is accepted must describe only bytes inside the datagram.
enum RTPFuzz {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        _ = RTPHeader.isRTCP(bytes)
        for validatingPadding in [true, false] {
            guard let header = try? RTPHeader.parse(bytes, validatingPadding: validatingPadding) else { continue }
            precondition(header.headerLength <= bytes.count, "RTP header longer than the datagram")
            let payload = header.payloadRange(packetLength: bytes.count)
            precondition(payload.lowerBound == header.headerLength, "payload inside the header")
            precondition(payload.upperBound <= bytes.count, "payload past the datagram")
            for index in 0..<header.csrcCount { _ = header.csrc(at: index, in: bytes) }
            checkRewrite(bytes, header, validatingPadding: validatingPadding)
        }
        for requireReportFirst in [true, false] {
            guard let count = try? RTCPCompound.validate(bytes, requireReportFirst: requireReportFirst) else {
                continue
            }
            var seen = 0
            var total = 0
            try? RTCPCompound.forEachPacket(in: bytes, requireReportFirst: requireReportFirst) { header, packet in
                precondition(packet.count == header.packetLength, "packet slice and header disagree")
                seen += 1
                total += packet.count
                if let cname = RTCPSourceDescription.firstCNAME(in: packet) {
                    precondition(cname.count <= packet.count, "CNAME longer than its packet")
                }
            }
            precondition(seen == count && total == bytes.count, "validate and forEachPacket disagree")
        }
        _ = try? RTCPHeader.parse(bytes)
    }

    /// Rewriting the fields a relay munges must keep the rest of the header as parsed.
    private static func checkRewrite(_ bytes: UnsafeRawBufferPointer, _ header: RTPHeader, validatingPadding: Bool) {
        var copy = [UInt8](bytes)
        do {
            try RTPHeader.rewrite(
                &copy, sequenceNumber: 0x1234, timestamp: 0xDEAD_BEEF, ssrc: 0x5A5A_5A5A, marker: !header.marker)
            var again = try RTPHeader.parse(copy, validatingPadding: validatingPadding)
            again.sequenceNumber = header.sequenceNumber
            again.timestamp = header.timestamp
            again.ssrc = header.ssrc
            again.marker = header.marker
            precondition(again == header, "rewrite changed more than it should")
        } catch {
            preconditionFailure("a parsed header could not be rewritten: \(error)")
        }
    }
}
