import NIOCore
import PTTCore
import TestSupport
import Testing

@testable import PTTRelay

/// A channel's member list on the relay: O(1) joins and leaves, and the holder's SSRC kept right.
@Suite("Relay channel state")
struct RelayChannelStateTests {
    static func member(_ n: UInt32, channel: ChannelID) throws -> RelayMember {
        let config = RelayMemberConfig(
            id: MemberID("m\(n)"), channel: channel, ssrc: n, listenSSRC: n ^ 0x5A5A_5A5A, key: [], receiveOnly: false)
        return RelayMember(
            config: config, crypto: try MemberCrypto(key: [], ssrc: n, listenSSRC: n ^ 0x5A5A_5A5A, secure: false))
    }

    @Test("random joins, leaves and floor changes keep the list equal to a plain set, and the holder's SSRC right")
    func randomWalk() throws {
        let channel = ChannelID()
        var state = RelayChannelState(channel: channel)
        var expected = Set<UInt32>()
        var holder: UInt32?
        var random = SplitMix64(seed: 9)
        for _ in 0..<5_000 {
            let n = UInt32(random.next() % 64) + 1
            switch random.next() % 3 {
            case 0:
                state.put(try Self.member(n, channel: channel))
                expected.insert(n)
            case 1:
                state.remove(MemberID("m\(n)"))
                if expected.remove(n) != nil, holder == n { holder = nil }
            default:
                state.setHolder(MemberID("m\(n)"))
                holder = n
            }
            #expect(Set(state.members.map(\.config.ssrc)) == expected)
            #expect(state.members.count == expected.count)
            #expect(state.holderSSRC == holder.flatMap { expected.contains($0) ? $0 : nil })
            for ssrc in expected { #expect(state.member(MemberID("m\(ssrc)"))?.config.ssrc == ssrc) }
        }
    }

    @Test("a new burst continues the channel's timeline by the time that passed, at least one frame")
    func timeline() {
        var state = RelayChannelState(channel: ChannelID())
        let start = NIODeadline.uptimeNanoseconds(100_000_000_000)
        let (first, starts) = state.mapTimestamp(5_000, from: 1, now: start)
        #expect(starts)
        let (second, continues) = state.mapTimestamp(5_960, from: 1, now: start)
        #expect(!continues && second == first &+ 960)
        let (third, startsAgain) = state.mapTimestamp(77, from: 2, now: NIODeadline.uptimeNanoseconds(102_000_000_000))
        #expect(startsAgain && third == second &+ 2 * 48_000)
    }
}
