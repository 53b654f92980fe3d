import NIOCore
import PTTCore
import RTP
import Testing

@testable import PTTRelay

/// The relay's per-packet rules, with no socket: who may send, what is held, what is dropped and why.
@Suite("Relay rules")
struct RelayRulesTests {
    static let channel = ChannelID()
    static func member(_ ssrc: UInt32, receiveOnly: Bool = false) -> RelayMemberConfig {
        RelayMemberConfig(
            id: MemberID("m\(ssrc)"), channel: channel, ssrc: ssrc, listenSSRC: ssrc ^ 0x5A5A_5A5A, key: [],
            receiveOnly: receiveOnly)
    }
    let now = NIODeadline.uptimeNanoseconds(10_000_000_000)
    let implicit = RelayRules(holdsForImplicitRequest: true)
    let explicit = RelayRules(holdsForImplicitRequest: false)

    @Test("the holder's Opus is forwarded; anyone else's is dropped as not-floor-holder")
    func holderOnly() {
        let a = Self.member(1)
        let b = Self.member(2)
        #expect(
            explicit.decide(payloadType: 111, validOpus: true, sender: a, holderSSRC: 1, hold: nil, now: now)
                == .forward)
        #expect(
            explicit.decide(payloadType: 111, validOpus: true, sender: b, holderSSRC: 1, hold: nil, now: now)
                == .drop(.notFloorHolder))
        #expect(
            implicit.decide(payloadType: 111, validOpus: true, sender: b, holderSSRC: 1, hold: nil, now: now)
                == .drop(.notFloorHolder))
        #expect(
            explicit.decide(payloadType: 111, validOpus: true, sender: b, holderSSRC: nil, hold: nil, now: now)
                == .drop(.notFloorHolder))
    }

    @Test("receive-only, another payload type and invalid Opus are dropped with their own reason, even from the holder")
    func checks() {
        let a = Self.member(1)
        let listener = Self.member(3, receiveOnly: true)
        #expect(
            explicit.decide(payloadType: 111, validOpus: true, sender: listener, holderSSRC: 3, hold: nil, now: now)
                == .drop(.receiveOnly))
        #expect(
            explicit.decide(payloadType: 0, validOpus: true, sender: a, holderSSRC: 1, hold: nil, now: now)
                == .drop(.payloadType))
        #expect(
            explicit.decide(payloadType: 111, validOpus: false, sender: a, holderSSRC: 1, hold: nil, now: now)
                == .drop(.opus))
    }

    @Test("audio on an idle floor is held for the implicit request: one hold per sender, bounded in time and count")
    func holds() {
        let a = Self.member(1)
        let b = Self.member(2)
        #expect(
            implicit.decide(payloadType: 111, validOpus: true, sender: a, holderSSRC: nil, hold: nil, now: now)
                == .hold(startsHold: true))
        let hold = FloorHold(ssrc: 1, since: now, count: 3)
        #expect(
            implicit.decide(
                payloadType: 111, validOpus: true, sender: a, holderSSRC: nil, hold: hold, now: now + .milliseconds(100)
            )
                == .hold(startsHold: false))
        // Another sender, or the same one after the window, starts a new hold.
        #expect(
            implicit.decide(payloadType: 111, validOpus: true, sender: b, holderSSRC: nil, hold: hold, now: now)
                == .hold(startsHold: true))
        #expect(
            implicit.decide(
                payloadType: 111, validOpus: true, sender: a, holderSSRC: nil, hold: hold,
                now: now + RelayRules.holdWindow)
                == .hold(startsHold: true))
        let full = FloorHold(ssrc: 1, since: now, count: RelayRules.maxHeldPackets)
        #expect(
            implicit.decide(payloadType: 111, validOpus: true, sender: a, holderSSRC: nil, hold: full, now: now)
                == .drop(.notFloorHolder))
    }

    @Test("held audio goes out only to the member it was held for, and only while fresh")
    func release() {
        let hold = FloorHold(ssrc: 1, since: now, count: 2)
        #expect(implicit.releasesHold(hold, holderSSRC: 1, now: now + .milliseconds(300)))
        #expect(!implicit.releasesHold(hold, holderSSRC: 2, now: now))
        #expect(!implicit.releasesHold(hold, holderSSRC: 1, now: now + RelayRules.holdFreshness))
    }

    @Test("a datagram's kind and SSRC are read from its first bytes")
    func kinds() throws {
        func kind(_ bytes: [UInt8]) -> DatagramKind { bytes.withUnsafeBytes { DatagramKind($0) } }
        let rtp = try RTPHeader.makePacket(
            payloadType: 111, sequenceNumber: 1, timestamp: 0, ssrc: 0xDEAD_BEEF, payload: [0xF8])
        #expect(kind(rtp) == .rtp(ssrc: 0xDEAD_BEEF))
        let rtcp = try RTCPWriter.makeKeepAlive(ssrc: 0x0102_0304, cname: "x")
        #expect(kind(rtcp) == .rtcp(ssrc: 0x0102_0304))
        #expect(kind(Array(rtp[0..<11])) == .malformed)
        #expect(kind([0x80, 111, 0, 1, 0, 0, 0]) == .malformed)
        #expect(kind([]) == .malformed)
    }

    @Test("every drop reason has its own counter position")
    func ordinals() {
        #expect(RelayDropReason.allCases.map(\.ordinal) == Array(RelayDropReason.allCases.indices))
    }
}
