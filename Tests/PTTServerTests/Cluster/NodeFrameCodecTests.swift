import Foundation
import NIOCore
import NIOEmbedded
import PTTCore
import PTTProtocol
import Testing

@testable import PTTServer

/// A channel with the node link's frame decoder and encoder, as `NodeLinks` puts them under its `NodeLinkHandler`.
private func nodeFrameChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(NodeFrameDecoder()))
    try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(NodeFrameEncoder()))
    return channel
}

private func lengthPrefixed(_ body: [UInt8]) -> [UInt8] {
    withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + body
}

@Suite("Node links: frames")
struct NodeFrameCodecTests {
    static let messages: [NodeMessage] = [
        .hello(NodeHello(node: "a", to: "b", mediaKey: "00ff", mediaSuite: "AEAD_AES_128_GCM")), .heartbeat,
        .hello(NodeHello(node: "b", to: "a")),
        .floorRefused(NodeFloorRefused(channel: ChannelID(), ticket: 42, owner: "c")),
        .floorRefused(NodeFloorRefused(channel: ChannelID(), ticket: 43, owner: nil)),
        .floorRequest(
            NodeFloorRequest(channel: ChannelID(), member: MemberID("0049ae0dc25c"), ticket: 7, emergency: nil)),
        .floorRequest(
            NodeFloorRequest(
                channel: ChannelID(), member: MemberID("0049ae0dc25d"), ticket: 8,
                emergency: NodeEmergency(
                    ChannelEmergency(
                        level: .imminentPeril, member: MemberID("0049ae0dc25d"), user: "ann",
                        since: Date(timeIntervalSince1970: 1_790_000_000.125))))),
    ]

    @Test func aForwardedDeclarationReadsBackAsTheDeclarationOfTheRequestsMember() throws {
        let member = MemberID("0049ae0dc25f")
        let declared = ChannelEmergency(
            level: .emergency, member: member, user: "ann", since: Date(timeIntervalSince1970: 1_790_000_000.5))
        let sent = NodeEmergency(declared)
        let read = try JSONDecoder().decode(NodeEmergency.self, from: try JSONEncoder().encode(sent))
        #expect(read.declaration(by: member) == declared)
        var newer = sent
        newer.level = "meteor-strike"
        #expect(newer.declaration(by: member) == nil, "a level this node does not know: an ordinary request")
    }

    @Test func aFloorRequestFromANodeThatSendsNoUrgencyIsAnOrdinaryOne() throws {
        let channel = ChannelID()
        let member = MemberID("0049ae0dc25e")
        let earlier = #"{"type":"floor-request","channel":"\#(channel)","member":"\#(member)","ticket":9}"#
        let message = try JSONDecoder().decode(NodeMessage.self, from: Data(earlier.utf8))
        #expect(message == .floorRequest(NodeFloorRequest(channel: channel, member: member, ticket: 9, emergency: nil)))
    }

    @Test func aNodeMessageIsALengthThenItsJSONAndReadsBackSplitAnywhere() throws {
        let channel = try nodeFrameChannel()
        for message in Self.messages { try channel.writeOutbound(message) }
        var wire = [UInt8]()
        while let out = try channel.readOutbound(as: ByteBuffer.self) { wire += out.readableBytesView }
        // Each frame: a 4-byte big-endian length, then that many bytes of the message's JSON (whose key order the
        // encoder does not fix).
        var frames = ByteBuffer(bytes: wire)
        for message in Self.messages {
            let length = frames.readInteger(as: UInt32.self)
            let body = try #require(length.flatMap { frames.readBytes(length: Int($0)) })
            #expect(try JSONDecoder().decode(NodeMessage.self, from: Data(body)) == message)
        }
        #expect(frames.readableBytes == 0)
        for split in 0...wire.count {
            try channel.writeInbound(ByteBuffer(bytes: wire[..<split]))
            try channel.writeInbound(ByteBuffer(bytes: wire[split...]))
            for message in Self.messages {
                #expect(try channel.readInbound(as: NodeMessage.self) == message, "split at \(split)")
            }
        }
        #expect(try channel.finish().isClean)
    }

    @Test func aLengthOverTheControlLimitIsRefusedLikeOnAControlConnection() throws {
        let channel = try nodeFrameChannel()
        #expect(throws: ControlFrameError.tooLarge(length: 65_537)) {
            try channel.writeInbound(ByteBuffer(bytes: [0x00, 0x01, 0x00, 0x01]))
        }
        _ = try? channel.finish()
    }

    @Test func aBodyThatIsNoNodeMessageIsTheJSONDecodersError() throws {
        let channel = try nodeFrameChannel()
        #expect(throws: DecodingError.self) {
            try channel.writeInbound(ByteBuffer(bytes: lengthPrefixed(Array(#"{"kind":"hello"}"#.utf8))))
        }
        _ = try? channel.finish()
    }

    /// A newer node's message: read as `unknown`, so the link stays up (the plane skips it and counts it).
    @Test func aMessageOfATypeThisVersionDoesNotKnowIsReadAsUnknown() throws {
        let channel = try nodeFrameChannel()
        try channel.writeInbound(
            ByteBuffer(bytes: lengthPrefixed(Array(#"{"type":"floor-handover","channel":"x"}"#.utf8))))
        #expect(try channel.readInbound(as: NodeMessage.self) == .unknown("floor-handover"))
        #expect(try channel.finish().isClean)
    }
}
