import Foundation
import Opus
import RTP
import SRTP
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ffmpeg encrypts an Opus RTP stream with a key given as base64 (`-srtp_out_params`) and sends it,
/// with its SRTCP sender report muxed on the same port, to a UDP socket here; SRTPSession must
/// decrypt every packet. This checks the key text format and SRTPSession against an independent
/// SRTP implementation (ffmpeg's own, not libsrtp).
@Suite("SRTP interoperability with ffmpeg")
struct SRTPInteropTests {
    static let ffmpeg = "/usr/bin/ffmpeg"

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: ffmpeg), "needs /usr/bin/ffmpeg"),
        .timeLimit(.minutes(1)))
    func decryptsFFmpegSRTPStream() async throws {
        let socket = try UDPReceiver()
        defer { socket.close() }
        let key = try SRTPKey(base64: "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR")
        let ssrc: UInt32 = 0x0BAD_CAFE

        // ffmpeg sends the whole second at once; the socket's buffer keeps it until ffmpeg has exited.
        let result = try await ToolRun.run(
            Self.ffmpeg,
            [
                "-hide_banner", "-loglevel", "error", "-nostdin",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                "-c:a", "libopus", "-ar", "48000", "-ac", "1",
                "-f", "rtp", "-payload_type", "111", "-ssrc", String(ssrc),
                "-srtp_out_suite", SRTPSession.suiteName, "-srtp_out_params", key.base64,
                "srtp://127.0.0.1:\(socket.port)?rtcpport=\(socket.port)&pkt_size=1200",
            ])
        #expect(result.status == 0, "ffmpeg: \(result.stderr)")
        var datagrams: [[UInt8]] = []
        while let datagram = socket.receiveWaiting() { datagrams.append(datagram) }

        let rtpSession = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(ssrc))
        var sequenceNumbers: [UInt16] = []
        var reports = 0
        for datagram in datagrams {
            if RTPHeader.isRTCP(datagram) {
                let rtcp = try rtpSession.unprotectRTCP(datagram)
                #expect(try RTCPCompound.validate(rtcp) >= 1)
                let first = try RTCPHeader.parse(rtcp)
                #expect(first.packetType == .senderReport)
                #expect(first.ssrc == ssrc)
                reports += 1
            } else {
                let rtp = try rtpSession.unprotect(datagram)
                #expect(rtp.count == datagram.count - SRTPSession.rtpOverhead)
                let header = try RTPHeader.parse(rtp)
                #expect(header.payloadType == 111)
                #expect(header.ssrc == ssrc)
                let payload = Array(rtp[header.payloadRange(packetLength: rtp.count)])
                #expect(throws: Never.self) { try OpusPacket.validate(payload) }
                sequenceNumbers.append(header.sequenceNumber)
            }
        }
        #expect(reports >= 1)
        #expect(sequenceNumbers.count >= 40)  // 1 s of 20 ms frames
        for (previous, next) in zip(sequenceNumbers, sequenceNumbers.dropFirst()) {
            #expect(next == previous &+ 1)
        }
    }
}
