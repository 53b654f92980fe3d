import Foundation
import RTP
import Opus
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

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: ffmpeg), "needs /usr/bin/ffmpeg"),
          .timeLimit(.minutes(1)))
    func decryptsFFmpegSRTPStream() async throws {
        let socket = try UDPReceiver()
        defer { socket.close() }
        let key = try SRTPKey(base64: "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR")
        let ssrc: UInt32 = 0x0BAD_CAFE

        // ffmpeg sends the whole second at once; the socket's buffer keeps it until ffmpeg has exited.
        let result = try await ToolRun.run(Self.ffmpeg, [
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
        #expect(sequenceNumbers.count >= 40)     // 1 s of 20 ms frames
        for (previous, next) in zip(sequenceNumbers, sequenceNumbers.dropFirst()) {
            #expect(next == previous &+ 1)
        }
    }
}

/// A UDP socket on 127.0.0.1 with a buffer large enough for the whole stream.
private final class UDPReceiver {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Glibc.bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else { Glibc.close(descriptor); throw POSIXError(.EADDRNOTAVAIL) }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
        var bufferSize: Int32 = 4 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The next datagram already waiting in the socket's buffer, or nil if there is none.
    func receiveWaiting() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count >= 0 ? Array(buffer[..<count]) : nil
    }

    func close() { Glibc.close(descriptor) }
}
