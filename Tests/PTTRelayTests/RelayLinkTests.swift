import NIOCore
import PTTCore
import RTP
import SRTP
import Testing

@testable import PTTRelay

/// A cluster's media between nodes on one relay: a channel's links (``RelayChannelLinks``) get one copy each,
/// protected with the pair's key; what arrives on a link is taken only from the owner (elsewhere), only with the
/// floor holder as its speaker, and only when it authenticates.
@Suite("Node links on the relay")
struct RelayLinkTests {
    typealias Harness = MediaRelayHandlerTests.Harness

    static let key = [UInt8](repeating: 7, count: MediaSuite.aeadAES128GCM.keyLength)
    static let otherKey = [UInt8](repeating: 9, count: MediaSuite.aeadAES128GCM.keyLength)

    /// A link to `peer`: its copies arrive on SSRC 0x1000 + n, ours go out on 0x2000 + n.
    static func link(_ peer: String, _ n: UInt32, key: [UInt8] = key) throws -> RelayNodeLink {
        RelayNodeLink(
            peer: peer, inboundSSRC: 0x1000 + n, outboundSSRC: 0x2000 + n, key: key, suite: .aeadAES128GCM,
            address: try SocketAddress(ipAddress: "127.0.0.1", port: 41_000 + Int(n)))
    }

    /// What `peer` would send on its link: the holder's payload with the holder in the CSRC, protected.
    static func linkPacket(
        from link: RelayNodeLink, speaker: UInt32, sequence: UInt16, key: [UInt8] = key,
        payload: [UInt8] = [0xF8, 1, 2, 3]
    ) throws -> [UInt8] {
        let session = try SRTPSession(
            direction: .outbound, key: key, ssrc: .specific(link.inboundSSRC), profile: .aeadAES128GCM)
        return try session.protect(
            RTPHeader.makePacket(
                payloadType: 111, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960, ssrc: link.inboundSSRC,
                csrc: speaker, payload: payload))
    }

    /// Decrypts a copy the relay sent on a link, as the peer would.
    static func open(
        _ bytes: [UInt8], on link: RelayNodeLink
    ) throws -> (header: RTPHeader, payload: [UInt8], csrc: UInt32) {
        let session = try SRTPSession(
            direction: .inbound, key: link.key, ssrc: .specific(link.outboundSSRC), profile: .aeadAES128GCM)
        let clear = try session.unprotect(bytes)
        let header = try RTPHeader.parse(clear)
        let csrc = clear.withUnsafeBytes { header.csrc(at: 0, in: $0) }
        return (header, Array(clear[header.payloadRange(packetLength: clear.count)]), csrc)
    }

    func linkCopies(
        _ harness: Harness, to link: RelayNodeLink, sent: [(to: SocketAddress, bytes: [UInt8])]
    ) -> [[UInt8]] {
        sent.filter { $0.to == link.address }.map(\.bytes)
    }

    @Test("on the owner, the holder's packet goes to its members and once to each link, protected with the pair's key")
    func ownerSendsToEachLink() throws {
        let harness = try Harness()
        try harness.join(1, 2)
        let (a, b) = (try Self.link("n2", 1), try Self.link("n3", 2))
        harness.apply(
            .links(harness.id, RelayChannelLinks(owner: nil, links: [a, b])), .floor(harness.id, holder: MemberID("m1"))
        )
        try harness.talk(1, sequence: 10)
        let sent = try harness.sentRaw()
        #expect(sent.count == 3, "member 2 and two links")
        for link in [a, b] {
            let copies = linkCopies(harness, to: link, sent: sent)
            #expect(copies.count == 1)
            let opened = try Self.open(copies[0], on: link)
            #expect(opened.header.ssrc == link.outboundSSRC && opened.csrc == 1 && opened.payload == [0xF8, 1, 2, 3])
        }
        #expect(harness.counter("ptt_media_link_packets_sent_total") == 2)
    }

    @Test(
        "on another node, the owner's copy reaches the members there and goes no further; a copy from another node, of another speaker, or forged is dropped"
    )
    func followerTakesOnlyTheOwner() throws {
        let harness = try Harness()
        try harness.join(1, 2)
        // Member 5 is connected to another node: it holds the floor, the relay never heard it.
        harness.apply(.join(harness.config(5)))
        let owner = try Self.link("n1", 1)
        let stranger = try Self.link("n3", 3)
        harness.apply(
            .links(harness.id, RelayChannelLinks(owner: "n1", links: [owner, stranger])),
            .floor(harness.id, holder: MemberID("m5")))

        try harness.send(from: 9, try Self.linkPacket(from: owner, speaker: 5, sequence: 1))
        let sent = try harness.sentRaw()
        #expect(sent.count == 2, "members 1 and 2, nothing back on a link")
        #expect(sent.allSatisfy { $0.to != owner.address && $0.to != stranger.address })
        #expect(try sent.map { try RTPHeader.parse($0.bytes) }.allSatisfy { $0.csrcCount == 1 })

        try harness.send(from: 9, try Self.linkPacket(from: stranger, speaker: 5, sequence: 1))
        try harness.send(from: 9, try Self.linkPacket(from: owner, speaker: 2, sequence: 2))
        try harness.send(from: 9, try Self.linkPacket(from: owner, speaker: 5, sequence: 3, key: Self.otherKey))
        #expect(try harness.sentRaw().isEmpty)
        #expect(harness.counter("dropped{reason=\"not-floor-holder\"}") == 2)
        #expect(harness.counter("dropped{reason=\"authentication\"}") == 1)
        #expect(harness.counter("ptt_media_link_packets_received_total") == 3)
    }

    @Test("on the owner, a copy from one link goes to its members and the other links, never back")
    func ownerRelaysBetweenLinks() throws {
        let harness = try Harness()
        try harness.join(1)
        harness.apply(.join(harness.config(5)))
        let (a, b) = (try Self.link("n2", 1), try Self.link("n3", 2))
        harness.apply(
            .links(harness.id, RelayChannelLinks(owner: nil, links: [a, b])), .floor(harness.id, holder: MemberID("m5"))
        )
        try harness.send(from: 9, try Self.linkPacket(from: a, speaker: 5, sequence: 1))
        let sent = try harness.sentRaw()
        #expect(sent.count == 2)
        #expect(linkCopies(harness, to: a, sent: sent).isEmpty)
        #expect(try linkCopies(harness, to: b, sent: sent).map { try Self.open($0, on: b).csrc } == [5])
    }

    @Test("links replaced with the same parameters keep their streams; removed links free their SSRCs")
    func linksReplaced() throws {
        let harness = try Harness()
        try harness.join(1, 2)
        let a = try Self.link("n2", 1)
        harness.apply(
            .links(harness.id, RelayChannelLinks(owner: nil, links: [a])), .floor(harness.id, holder: MemberID("m1")))
        try harness.talk(1, sequence: 1)
        harness.apply(.links(harness.id, RelayChannelLinks(owner: nil, links: [a])))
        try harness.talk(1, sequence: 2)
        let copies = linkCopies(harness, to: a, sent: try harness.sentRaw())
        let sequences = try copies.map { try RTPHeader.parse($0).sequenceNumber }
        #expect(sequences.count == 2 && sequences[1] == sequences[0] &+ 1, "one stream across the update")
        harness.apply(.links(harness.id, nil))
        #expect(harness.relay.membersBySSRC[a.inboundSSRC] == nil)
        try harness.talk(1, sequence: 3)
        #expect(try harness.sentRaw().count == 1, "member 2 only")
    }
}

extension MediaRelayHandlerTests.Harness {
    /// Every datagram written since the last call, as sent.
    func sentRaw() throws -> [(to: SocketAddress, bytes: [UInt8])] {
        var out: [(SocketAddress, [UInt8])] = []
        while let envelope = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) {
            out.append((envelope.remoteAddress, Array(envelope.data.readableBytesView)))
        }
        return out
    }
}
