import RTP
import TestSupport
import Testing

@Suite("RTP header writing and rewriting")
struct RTPWriteTests {
    @Test func writesExactBytes() throws {
        let packet = try RTPHeader.makePacket(
            marker: true, payloadType: 111, sequenceNumber: 0x1234,
            timestamp: 0xDECA_FBAD, ssrc: 0xCAFE_BABE, payload: [1, 2, 3]
        )
        #expect(packet == RTPTestPackets.simple)
    }

    @Test func writesCSRC() throws {
        let packet = try RTPHeader.makePacket(
            payloadType: 111, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrc: 0xAABB_CCDD, payload: [9]
        )
        #expect(packet == [0x81, 0x6F, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xAA, 0xBB, 0xCC, 0xDD, 9])
        let header = try RTPHeader.parse(packet)
        #expect(header.csrcCount == 1)
        #expect(header.csrc(at: 0, in: packet) == 0xAABB_CCDD)
    }

    @Test func randomRoundTrips() throws {
        var rng = SplitMix64(seed: 0x5752_4954)
        var buffer = [UInt8](repeating: 0xEE, count: 1500)
        for _ in 0..<2_000 {
            let marker = Bool.random(using: &rng)
            var payloadType = UInt8.random(in: 0...127, using: &rng)
            if (64...95).contains(payloadType) { payloadType = 111 }
            let seq = UInt16.random(in: .min ... .max, using: &rng)
            let ts = UInt32.random(in: .min ... .max, using: &rng)
            let ssrc = UInt32.random(in: .min ... .max, using: &rng)
            let csrc: UInt32? = Bool.random(using: &rng) ? UInt32.random(in: .min ... .max, using: &rng) : nil
            let payload = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }

            let length = try buffer.withUnsafeMutableBytes { out in
                try payload.withUnsafeBytes { body in
                    try RTPHeader.writePacket(
                        into: out, marker: marker, payloadType: payloadType, sequenceNumber: seq,
                        timestamp: ts, ssrc: ssrc, csrc: csrc, payload: body
                    )
                }
            }
            let packet = Array(buffer[..<length])
            let header = try RTPHeader.parse(packet)
            #expect(
                header
                    == RTPHeader(
                        csrcCount: csrc == nil ? 0 : 1, marker: marker, payloadType: payloadType,
                        sequenceNumber: seq, timestamp: ts, ssrc: ssrc
                    ))
            if let csrc { #expect(header.csrc(at: 0, in: packet) == csrc) }
            #expect(Array(packet[header.payloadRange(packetLength: length)]) == payload)
            #expect(!RTPHeader.isRTCP(packet))
        }
    }

    @Test func rejectsSmallBuffers() {
        var small = [UInt8](repeating: 0, count: 15)
        small.withUnsafeMutableBytes { out in
            #expect(throws: RTPWriteError.bufferTooSmall(needed: 16, available: 15)) {
                try RTPHeader.write(
                    into: out, marker: false, payloadType: 111, sequenceNumber: 0, timestamp: 0, ssrc: 0, csrc: 1)
            }
            #expect(
                (try? RTPHeader.write(
                    into: out, marker: false, payloadType: 111, sequenceNumber: 0, timestamp: 0, ssrc: 0)) == 12)
            let payload: [UInt8] = [1, 2, 3, 4]
            _ = payload.withUnsafeBytes { body in
                #expect(throws: RTPWriteError.bufferTooSmall(needed: 16, available: 15)) {
                    try RTPHeader.writePacket(
                        into: out, marker: false, payloadType: 111, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                        payload: body
                    )
                }
            }
        }
    }

    @Test(arguments: [UInt8(64), 72, 95, 128, 255])
    func rejectsPayloadTypesThatCollideWithRTCPOrOverflow(payloadType: UInt8) {
        #expect(throws: RTPWriteError.invalidPayloadType(payloadType)) {
            try RTPHeader.makePacket(payloadType: payloadType, sequenceNumber: 0, timestamp: 0, ssrc: 0, payload: [])
        }
    }

    @Test(arguments: [UInt8(0), 63, 96, 111, 127])
    func acceptsOtherPayloadTypes(payloadType: UInt8) throws {
        let packet = try RTPHeader.makePacket(
            payloadType: payloadType, sequenceNumber: 0, timestamp: 0, ssrc: 0, payload: [])
        #expect(try RTPHeader.parse(packet).payloadType == payloadType)
    }

    @Test func rewriteChangesOnlySeqTimestampSSRCAndMarker() throws {
        var packet = RTPTestPackets.full
        try RTPHeader.rewrite(&packet, sequenceNumber: 0xFFFF, timestamp: 0x0102_0304, ssrc: 0xA1B2_C3D4, marker: true)
        let header = try RTPHeader.parse(packet)
        #expect(header.sequenceNumber == 0xFFFF)
        #expect(header.timestamp == 0x0102_0304)
        #expect(header.ssrc == 0xA1B2_C3D4)
        #expect(header.marker)
        #expect(header.payloadType == 96)
        #expect(header.csrc(at: 1, in: packet) == 0x2222_2222)
        // Everything from the CSRC list on is untouched.
        #expect(packet[12...] == RTPTestPackets.full[12...])
        #expect(packet[0] == RTPTestPackets.full[0])

        try RTPHeader.rewrite(&packet, sequenceNumber: 1, timestamp: 2, ssrc: 3, marker: false)
        #expect(try !RTPHeader.parse(packet).marker)
    }

    @Test func rewriteWithoutMarkerKeepsIt() throws {
        var packet = RTPTestPackets.simple
        try RTPHeader.rewrite(&packet, sequenceNumber: 5, timestamp: 6, ssrc: 7)
        #expect(packet == [0x80, 0xEF, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 1, 2, 3])
    }

    @Test func rewriteInRawBuffer() throws {
        var storage = [UInt8](repeating: 0, count: 64)
        storage.replaceSubrange(0..<RTPTestPackets.simple.count, with: RTPTestPackets.simple)
        try storage.withUnsafeMutableBytes { raw in
            let packet = UnsafeMutableRawBufferPointer(rebasing: raw[..<RTPTestPackets.simple.count])
            try RTPHeader.rewrite(packet, sequenceNumber: 0xABCD, timestamp: 0, ssrc: 0, marker: false)
        }
        #expect(storage[1] == 111)
        #expect(storage[2] == 0xAB && storage[3] == 0xCD)
        #expect(storage[12..<15] == [1, 2, 3])
    }

    @Test func rewriteRejectsNonRTP() {
        var short: [UInt8] = Array(RTPTestPackets.simple.prefix(11))
        #expect(throws: RTPParseError.tooShort) {
            try RTPHeader.rewrite(&short, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        }
        var v1 = RTPTestPackets.simple
        v1[0] = 0x40
        #expect(throws: RTPParseError.badVersion) {
            try RTPHeader.rewrite(&v1, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        }
        #expect(v1[2] == 0x12)  // untouched on error
    }
}
