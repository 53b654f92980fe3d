import NIOCore
import RTP

/// What the relay does with one datagram: decided by ``RelayRules`` from the relay's state, the parsed
/// header and the time, and only carried out by the relay.
enum RelayDecision: Equatable {
    /// Send a copy to every other reachable member of the sender's channel.
    case forward
    /// Forward a packet of the former holder that arrived after its release, within the grace: the end of its
    /// burst, which asks for nothing (no implicit floor request).
    case forwardLate
    /// Keep the packet until the implicit floor request it starts is decided; `startsHold` when it begins
    /// a new hold (replacing any older one, whose packets are then dropped).
    case hold(startsHold: Bool)
    /// An RTCP keep-alive: the member is here; nothing is sent.
    case keepAlive
    case drop(RelayDropReason)
}

/// The first look at a datagram, before anything is decrypted: where its SSRC is and what it is.
enum DatagramKind: Equatable {
    case rtp(ssrc: UInt32)
    case rtcp(ssrc: UInt32)
    case malformed

    /// Reads the first bytes only (RFC 5761 demultiplexing: RTCP packet types 192...223).
    init(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else {
            self = .malformed
            return
        }
        if RTPHeader.isRTCP(bytes) {
            self = .rtcp(ssrc: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        } else if bytes.count >= 12 {
            self = .rtp(ssrc: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        } else {
            self = .malformed
        }
    }
}

/// Packets held on an idle floor for one sender while its implicit floor request is on its way.
struct FloorHold {
    var ssrc: UInt32
    var since: NIODeadline
    var count: Int
}

/// The relay's per-packet rules, with no I/O: who may send, what is held, what is dropped and why.
struct RelayRules {
    /// Whether audio on an idle floor starts an implicit floor request (and is held meanwhile).
    var holdsForImplicitRequest: Bool
    /// How long held packets stay one hold (later ones start a new hold).
    static let holdWindow = TimeAmount.milliseconds(500)
    /// How old held packets may be when the floor is granted and they are sent.
    static let holdFreshness = TimeAmount.seconds(1)
    /// The most packets held per channel.
    static let maxHeldPackets = 25
    /// The RTP payload type the relay accepts and sends for Opus.
    static let opusPayloadType: UInt8 = 111

    /// Decides for an authenticated RTP packet whose header was parsed once.
    ///
    /// - Parameters:
    ///   - payloadType: from the header.
    ///   - validOpus: whether the payload is a valid Opus packet.
    ///   - sender: the member whose key authenticated it.
    ///   - holderSSRC: who holds the sender's channel's floor (nil: idle).
    ///   - hold: what is held on that channel now, if anything.
    ///   - lateAudio: the former holder still in its release's grace, if any (only looked at on an idle floor).
    func decide(
        payloadType: UInt8, validOpus: Bool, sender: RelayMemberConfig, holderSSRC: UInt32?, hold: FloorHold?,
        lateAudio: LateAudio? = nil, now: NIODeadline
    ) -> RelayDecision {
        guard !sender.receiveOnly else { return .drop(.receiveOnly) }
        guard payloadType == Self.opusPayloadType else { return .drop(.payloadType) }
        guard validOpus else { return .drop(.opus) }
        if holderSSRC == sender.ssrc { return .forward }
        if holderSSRC == nil, let lateAudio, lateAudio.ssrc == sender.ssrc, now < lateAudio.until {
            return .forwardLate
        }
        guard holderSSRC == nil, holdsForImplicitRequest else { return .drop(.notFloorHolder) }
        if let hold, hold.ssrc == sender.ssrc, now - hold.since < Self.holdWindow {
            return hold.count < Self.maxHeldPackets ? .hold(startsHold: false) : .drop(.notFloorHolder)
        }
        return .hold(startsHold: true)
    }

    /// Whether held packets go out now that the floor changed: only to the member they were held for,
    /// and only while recent.
    func releasesHold(_ hold: FloorHold, holderSSRC: UInt32?, now: NIODeadline) -> Bool {
        holderSSRC == hold.ssrc && now - hold.since < Self.holdFreshness
    }
}
