import NIOCore
import PortableSRTP
import RTP

/// Receives the relay's stream: unprotects, parses, hands on.
final class MediaReceiveHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: the SRTP session is used only on this channel's event loop.
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let srtp: PortableSRTPSession?
    private let continuation: AsyncStream<ReceivedAudio>.Continuation
    private let closed: @Sendable (Channel) -> Void
    private let replayed: @Sendable () -> Void

    init(
        srtp: PortableSRTPSession?, continuation: AsyncStream<ReceivedAudio>.Continuation,
        closed: @escaping @Sendable (Channel) -> Void,
        replayed: @escaping @Sendable () -> Void
    ) {
        self.srtp = srtp
        self.continuation = continuation
        self.closed = closed
        self.replayed = replayed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var packet = Array(unwrapInboundIn(data).data.readableBytesView)
        guard !RTPHeader.isRTCP(packet) else { return }
        if let srtp {
            do {
                packet = try srtp.unprotect(packet)
            } catch SRTPError.replayFail {
                replayed()  // a copy the network made (or an attacker replayed): dropped, and counted
                return
            } catch {
                return
            }
        }
        guard let header = try? RTPHeader.parse(packet) else { return }
        let payload = Array(packet[header.payloadRange(packetLength: packet.count)])
        continuation.yield(
            ReceivedAudio(
                payload: payload, sequenceNumber: header.sequenceNumber, timestamp: header.timestamp,
                marker: header.marker,
                ssrc: header.ssrc, speakerSSRC: header.csrcCount > 0 ? header.csrc(at: 0, in: packet) : nil,
                arrival: NIODeadline.now().uptimeNanoseconds))
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // ICMP port unreachable while the relay restarts: keep the socket.
    }
}
