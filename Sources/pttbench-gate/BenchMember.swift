import PTTCore
import PTTRelay
import RTP
import SRTP

/// One member of the relay benchmark: its configuration as the relay knows it, its socket, and (with SRTP) the
/// session it protects what it sends with.
struct BenchMember {
    let config: RelayMemberConfig
    let socket: LoopbackSocket
    private let outbound: SRTPSession?

    init(index: Int, channel: ChannelID, secure: Bool) throws {
        let ssrc = UInt32(0x1000 + index)
        let key = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
        config = RelayMemberConfig(
            id: MemberID("m\(index)"), channel: channel, ssrc: ssrc, listenSSRC: ssrc ^ 0x5A5A_5A5A,
            key: secure ? key : [], receiveOnly: false)
        socket = try LoopbackSocket()
        outbound = secure ? try SRTPSession(direction: .outbound, key: key, ssrc: .specific(ssrc)) : nil
    }

    /// What a member sends while silent, so the relay learns its address (SRTCP with SRTP).
    func keepAlive() throws -> [UInt8] {
        let packet = try RTCPWriter.makeKeepAlive(ssrc: config.ssrc, cname: config.id.rawValue)
        return try outbound.map { try $0.protectRTCP(packet) } ?? packet
    }

    /// An RTP packet as this member sends it (protected with SRTP).
    func protect(_ packet: [UInt8]) throws -> [UInt8] {
        try outbound.map { try $0.protect(packet) } ?? packet
    }
}
