import RTP
import TestSupport
import Testing

@Suite("RTP/RTCP parsers on random input")
struct RTPFuzzTests {
    /// Random bytes, half of them with a plausible first byte (V=2) so the deeper checks run.
    private static func randomPacket(_ rng: inout SplitMix64) -> [UInt8] {
        let length = Int.random(in: 0...80, using: &rng)
        var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
        if length > 0, Bool.random(using: &rng) { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
        if length > 1, Int.random(in: 0..<4, using: &rng) == 0 { bytes[1] = UInt8.random(in: 192...223, using: &rng) }
        return bytes
    }

    @Test func rtpParseNeverCrashesAndStaysInBounds() {
        var rng = SplitMix64(seed: 0x5254_5000)
        var accepted = 0
        for _ in 0..<10_000 {
            let packet = Self.randomPacket(&rng)
            guard let header = try? RTPHeader.parse(packet) else { continue }
            accepted += 1
            #expect(header.headerLength <= packet.count)
            #expect(header.headerLength + header.paddingLength <= packet.count)
            let range = header.payloadRange(packetLength: packet.count)
            #expect(range.lowerBound == header.headerLength && range.upperBound <= packet.count)
            for index in 0..<header.csrcCount { _ = header.csrc(at: index, in: packet) }
        }
        // The generator must exercise the accepting path too, or this test proves little.
        #expect(accepted > 500)
    }

    @Test func rtcpParsersNeverCrash() {
        var rng = SplitMix64(seed: 0x5254_4350)
        for _ in 0..<10_000 {
            let packet = Self.randomPacket(&rng)
            if let count = try? RTCPCompound.validate(packet, requireReportFirst: false) {
                #expect(count >= 1)
                let headers = (try? RTCPCompound.headers(packet, requireReportFirst: false)) ?? []
                #expect(headers.count == count)
                #expect(headers.reduce(0) { $0 + $1.packetLength } == packet.count)
            }
            _ = try? RTCPHeader.parse(packet)
            _ = RTCPSourceDescription.firstCNAME(in: packet)
        }
    }
}
