import RTP
import Testing

@Suite("RTP header parsing")
struct RTPParseTests {
    @Test func parsesSimplePacket() throws {
        let header = try RTPHeader.parse(RTPTestPackets.simple)
        #expect(
            header
                == RTPHeader(
                    marker: true, payloadType: 111, sequenceNumber: 0x1234,
                    timestamp: 0xDECA_FBAD, ssrc: 0xCAFE_BABE
                ))
        #expect(header.headerLength == 12)
        #expect(header.payloadRange(packetLength: RTPTestPackets.simple.count) == 12..<15)
    }

    @Test func parsesCSRCsExtensionAndPadding() throws {
        let packet = RTPTestPackets.full
        let header = try RTPHeader.parse(packet)
        #expect(header.padding)
        #expect(header.hasExtension)
        #expect(header.csrcCount == 2)
        #expect(!header.marker)
        #expect(header.payloadType == 96)
        #expect(header.sequenceNumber == 7)
        #expect(header.timestamp == 960)
        #expect(header.ssrc == 42)
        #expect(header.extensionProfile == 0xBEDE)
        #expect(header.extensionLength == 4)
        #expect(header.paddingLength == 4)
        #expect(header.headerLength == 12 + 8 + 4 + 4)
        #expect(header.csrc(at: 0, in: packet) == 0x1111_1111)
        #expect(header.csrc(at: 1, in: packet) == 0x2222_2222)
        let range = header.payloadRange(packetLength: packet.count)
        #expect(Array(packet[range]) == [0x55, 0x66])
    }

    @Test func paddingMayFillTheWholeBody() throws {
        // P set, 3 bytes after the header, all padding: empty payload.
        let packet: [UInt8] = [0xA0, 0x6F, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 3]
        let header = try RTPHeader.parse(packet)
        #expect(header.paddingLength == 3)
        #expect(header.payloadRange(packetLength: packet.count).isEmpty)
    }

    @Test func headerOnlyPacketIsValid() throws {
        let header = try RTPHeader.parse(Array(RTPTestPackets.simple.prefix(12)))
        #expect(header.payloadRange(packetLength: 12) == 12..<12)
    }

    @Test func paddingCanBeLeftUncheckedForProtectedPackets() throws {
        var packet = RTPTestPackets.full
        packet[packet.count - 1] = 200  // as if encrypted
        #expect(throws: RTPParseError.badPadding) { try RTPHeader.parse(packet) }
        let header = try RTPHeader.parse(packet, validatingPadding: false)
        #expect(header.padding)
        #expect(header.paddingLength == 0)
        #expect(header.headerLength == 28)
    }

    @Test(arguments: [
        ([UInt8](), RTPParseError.tooShort),
        (Array(RTPTestPackets.simple.prefix(11)), .tooShort),
        ([0x40] + Array(RTPTestPackets.simple.dropFirst()), .badVersion),  // V=1
        ([0xC0] + Array(RTPTestPackets.simple.dropFirst()), .badVersion),  // V=3
        ([0x00] + Array(RTPTestPackets.simple.dropFirst()), .badVersion),  // V=0
        ([0x82] + Array(RTPTestPackets.simple.dropFirst()), .csrcOverrun),  // CC=2, 3 bytes left
        (Array(RTPTestPackets.full.prefix(19)), .csrcOverrun),  // second CSRC cut
        ([0x90] + Array(RTPTestPackets.simple.dropFirst()), .extensionOverrun),  // X, no room for ext header
        (Array(RTPTestPackets.full.prefix(27)), .extensionOverrun),  // ext body cut
        ([0xA0] + Array(RTPTestPackets.simple.prefix(12).dropFirst()), .badPadding),  // P, nothing after header
        ([0xA0] + Array(RTPTestPackets.simple.dropFirst().dropLast()) + [0], .badPadding),  // pad count 0
        ([0xA0] + Array(RTPTestPackets.simple.dropFirst().dropLast()) + [4], .badPadding),  // 4 > 3 bytes
    ])
    func rejectsMalformed(packet: [UInt8], error: RTPParseError) {
        #expect(throws: error) { try RTPHeader.parse(packet) }
    }

    @Test func extensionLengthMayEndExactlyAtPacketEnd() throws {
        // X with profile and a 2-word body, nothing after it.
        let packet: [UInt8] = [0x90, 0x6F, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8]
        let header = try RTPHeader.parse(packet)
        #expect(header.headerLength == packet.count)
        #expect(header.extensionLength == 8)
        var longer = packet
        longer[15] = 3
        #expect(throws: RTPParseError.extensionOverrun) { try RTPHeader.parse(longer) }
    }

    @Test func rawBufferOverloadAgreesWithArrayOverload() throws {
        let packet = RTPTestPackets.full
        let fromRaw = try packet.withUnsafeBytes { raw in try RTPHeader.parse(raw) }
        #expect(fromRaw == (try RTPHeader.parse(packet)))
    }

    @Test func muxDemultiplexing() {
        #expect(!RTPHeader.isRTCP(RTPTestPackets.simple))  // PT 111 with marker: 0xEF = 239
        #expect(!RTPHeader.isRTCP([0x80, 111]))  // PT 111 without marker
        #expect(!RTPHeader.isRTCP([0x80, 0xE0]))  // PT 96 + marker = 224
        #expect(RTPHeader.isRTCP([0x80, 200]))  // SR
        #expect(RTPHeader.isRTCP([0x80, 201]))  // RR
        #expect(RTPHeader.isRTCP([0x80, 192]))
        #expect(RTPHeader.isRTCP([0x80, 223]))
        #expect(!RTPHeader.isRTCP([0x80, 191]))
        #expect(!RTPHeader.isRTCP([0x80]))
        #expect(!RTPHeader.isRTCP([]))
    }

    @Test func errorsDescribeThemselves() {
        for error in [RTPParseError.tooShort, .badVersion, .csrcOverrun, .extensionOverrun, .badPadding] {
            #expect(error.description.contains("RTP"))
        }
    }
}
