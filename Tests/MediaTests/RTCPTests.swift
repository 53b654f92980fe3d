import RTP
import Testing

@Suite("RTCP keep-alive, parsing and compound validation")
struct RTCPTests {
    @Test func emptyReceiverReportBytes() throws {
        let packet = try RTCPWriter.makeKeepAlive(ssrc: 0xCAFE_BABE, cname: nil)
        #expect(packet == [0x80, 201, 0x00, 0x01, 0xCA, 0xFE, 0xBA, 0xBE])
        #expect(RTPHeader.isRTCP(packet))
        let header = try RTCPHeader.parse(packet)
        #expect(header == RTCPHeader(count: 0, packetType: .receiverReport, lengthField: 1, ssrc: 0xCAFE_BABE))
        #expect(header.packetLength == 8)
        #expect(try RTCPCompound.validate(packet) == 1)
    }

    @Test func receiverReportWithCNAME() throws {
        let packet = try RTCPWriter.makeKeepAlive(ssrc: 7, cname: "relay@ptt")
        // RR 8 + SDES: 4 header + 4 SSRC + (2 + 9 + 1 → 12) = 20.
        #expect(packet.count == 28)
        #expect(
            Array(packet[8...]) == [
                0x81, 202, 0x00, 0x04,  // V=2 SC=1 SDES, 5 words
                0, 0, 0, 7,  // chunk SSRC
                1, 9, 0x72, 0x65, 0x6C, 0x61, 0x79, 0x40, 0x70, 0x74, 0x74,  // CNAME "relay@ptt"
                0,  // END
            ])
        #expect(RTPHeader.isRTCP(packet))
        #expect(try RTCPCompound.validate(packet) == 2)
        let headers = try RTCPCompound.headers(packet)
        #expect(headers.map(\.packetType) == [.receiverReport, .sourceDescription])
        #expect(headers.map(\.ssrc) == [7, 7])
        #expect(headers[1].count == 1)
        #expect(RTCPSourceDescription.firstCNAME(in: Array(packet[8...])) == "relay@ptt")
    }

    @Test func sdesIsAlwaysWordAlignedAndTerminated() throws {
        for length in 1...255 {
            let cname = String(repeating: "x", count: length)
            let packet = try RTCPWriter.makeKeepAlive(ssrc: 1, cname: cname)
            #expect(packet.count % 4 == 0)
            #expect(packet.count == RTCPWriter.keepAliveLength(cnameLength: length))
            #expect(packet.last == 0)
            #expect(try RTCPCompound.validate(packet) == 2)
            #expect(RTCPSourceDescription.firstCNAME(in: Array(packet[8...])) == cname)
        }
    }

    @Test func rawWriterFillsCallerBuffer() throws {
        var buffer = [UInt8](repeating: 0xFF, count: 64)
        let written = try buffer.withUnsafeMutableBytes { out in
            try RTCPWriter.writeKeepAlive(into: out, ssrc: 9, cname: "a")
        }
        #expect(written == 8 + 12)
        #expect(Array(buffer[8..<20]) == [0x81, 202, 0, 2, 0, 0, 0, 9, 1, 1, 0x61, 0])
        #expect(buffer[20] == 0xFF)  // nothing written past the end
        var cnames: [String?] = []
        try buffer.withUnsafeBytes { raw in
            try RTCPCompound.forEachPacket(in: UnsafeRawBufferPointer(rebasing: raw[..<written])) { header, packet in
                #expect(packet.count == header.packetLength)
                cnames.append(RTCPSourceDescription.firstCNAME(in: packet).map { String(decoding: $0, as: UTF8.self) })
            }
        }
        #expect(cnames == [nil, "a"])
    }

    @Test func writerErrors() {
        #expect(throws: RTCPWriteError.invalidCNAMELength(0)) { try RTCPWriter.makeKeepAlive(ssrc: 1, cname: "") }
        #expect(throws: RTCPWriteError.invalidCNAMELength(256)) {
            try RTCPWriter.makeKeepAlive(ssrc: 1, cname: String(repeating: "y", count: 256))
        }
        var buffer = [UInt8](repeating: 0, count: 19)
        buffer.withUnsafeMutableBytes { out in
            #expect(throws: RTCPWriteError.bufferTooSmall(needed: 20, available: 19)) {
                try RTCPWriter.writeKeepAlive(into: out, ssrc: 1, cname: "a")
            }
            #expect(throws: RTCPWriteError.bufferTooSmall(needed: 8, available: 7)) {
                try RTCPWriter.writeEmptyReceiverReport(
                    into: UnsafeMutableRawBufferPointer(rebasing: out[..<7]), ssrc: 1)
            }
        }
    }

    @Test func headerParseErrors() {
        #expect(throws: RTCPParseError.tooShort) { try RTCPHeader.parse([0x80, 201, 0]) }
        #expect(throws: RTCPParseError.badVersion) { try RTCPHeader.parse([0x40, 201, 0, 1, 0, 0, 0, 0]) }
        #expect(throws: RTCPParseError.notRTCP(111)) { try RTCPHeader.parse([0x80, 111, 0, 1, 0, 0, 0, 0]) }
        #expect(throws: RTCPParseError.lengthOverrun) { try RTCPHeader.parse([0x80, 201, 0, 2, 0, 0, 0, 0]) }
    }

    @Test func fourByteRTCPPacketHasNoSSRC() throws {
        let bye: [UInt8] = [0x80, 203, 0, 0]
        let header = try RTCPHeader.parse(bye)
        #expect(header.ssrc == nil)
        #expect(header.packetType == .goodbye)
        #expect(header.packetLength == 4)
    }

    @Test func compoundValidation() throws {
        let rr = try RTCPWriter.makeKeepAlive(ssrc: 1, cname: nil)
        let keepAlive = try RTCPWriter.makeKeepAlive(ssrc: 1, cname: "c")
        let sdes = Array(keepAlive[8...])

        #expect(throws: RTCPParseError.firstPacketNotReport(202)) { try RTCPCompound.validate(sdes) }
        #expect(try RTCPCompound.validate(sdes, requireReportFirst: false) == 1)
        #expect(throws: RTCPParseError.tooShort) { try RTCPCompound.validate([UInt8]()) }
        #expect(throws: RTCPParseError.tooShort) { try RTCPCompound.validate(keepAlive + [0x80]) }  // trailing byte
        #expect(throws: RTCPParseError.lengthOverrun) { try RTCPCompound.validate(Array(keepAlive.dropLast(4))) }
        // PT 111 + marker
        #expect(throws: RTCPParseError.notRTCP(0xEF)) { try RTCPCompound.validate(rr + RTPTestPackets.simple) }

        // Padding is allowed only on the last packet, with a count of 1...body.
        var paddedFirst = keepAlive
        paddedFirst[0] |= 0x20
        #expect(throws: RTCPParseError.badPadding) { try RTCPCompound.validate(paddedFirst) }
        let paddedLast: [UInt8] = rr + [0xA0, 203, 0, 1, 0, 0, 0, 4]  // BYE: 4 bytes of padding
        #expect(try RTCPCompound.validate(paddedLast) == 2)
        var badCount = paddedLast
        badCount[badCount.count - 1] = 5
        #expect(throws: RTCPParseError.badPadding) { try RTCPCompound.validate(badCount) }
        badCount[badCount.count - 1] = 0
        #expect(throws: RTCPParseError.badPadding) { try RTCPCompound.validate(badCount) }
    }

    @Test func cnameReaderRejectsOtherPackets() throws {
        #expect(RTCPSourceDescription.firstCNAME(in: try RTCPWriter.makeKeepAlive(ssrc: 1, cname: nil)) == nil)
        // SDES whose first item is NAME (2), then CNAME.
        let sdes: [UInt8] = [0x81, 202, 0, 3, 0, 0, 0, 1, 2, 1, 0x6E, 1, 1, 0x63, 0, 0]
        #expect(RTCPSourceDescription.firstCNAME(in: sdes) == "c")
        // Item length running past the packet.
        let broken: [UInt8] = [0x81, 202, 0, 2, 0, 0, 0, 1, 1, 9, 0x63, 0]
        #expect(RTCPSourceDescription.firstCNAME(in: broken) == nil)
    }

    @Test func packetTypeNames() {
        #expect(RTCPPacketType.senderReport.description == "SR")
        #expect(RTCPPacketType(rawValue: 206).description == "RTCP(206)")
    }
}
