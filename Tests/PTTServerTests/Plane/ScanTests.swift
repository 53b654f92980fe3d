import Foundation
import PTTAdmin
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Scan lists over loopback (Docs/PROTOCOL.md 5.45–5.47): a device in several channels hears one burst at a time,
/// the highest-priority one in progress, and is told which.
@Suite("Scan lists")
struct ScanTests {
    static func hearing(_ peer: Peer) async throws -> String? {
        guard case .scanSwitched(let switched) = try await peer.next("scan-switched") else {
            throw TestFailure("not scan-switched")
        }
        return switched.hearing?.name
    }

    /// Talks `packets` on `talker`'s channel, `onIndex` at each index, after taking its floor (not released).
    static func talk(
        _ talker: Talker, _ packets: [[UInt8]], start: UInt32, onIndex: ((Int) async throws -> Void)? = nil
    )
        async throws
    {
        let reply = try await talker.peer.request(.floorRequest(FloorCommand(channel: talker.joined.channel.name)))
        guard reply.type == "floor-granted" else { throw TestFailure("got \(reply.type)") }
        try await ReplayTests.talk(
            talker, packets.map { (data: $0, samples: 960) }, startTimestamp: start, onIndex: onIndex)
    }

    @Test(
        "a scanning listener hears the higher-priority burst from its first packet, is told so, and the lower one resumes live where it is when the higher ends"
    )
    func higherPreemptsLowerResumes() async throws {
        try await withTestServer(configure: BroadcastTests.askedFloors) { server in
            // Sam scans bridge (first) and deck; ann talks in deck, cap in bridge; dan listens in deck alone.
            let sam = try await BroadcastTests.member(server, "sam", in: ["bridge", "deck"])
            let (samBridge, samDeck) = (sam[0], sam[1])
            let ann = try await BroadcastTests.member(server, "ann", in: ["deck"])[0]
            let cap = try await BroadcastTests.member(server, "cap", in: ["bridge"])[0]
            let dan = try await BroadcastTests.member(server, "dan", in: ["deck"])[0]
            let reply = try await samDeck.peer.request(.scan(ScanRequest(channels: ["bridge", "deck"])))
            guard case .scanSet(let set) = reply else { throw TestFailure("got \(reply.type)") }
            #expect(set.channels.map(\.name) == ["bridge", "deck"] && set.resume == .live)
            let deck: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(deck.members.first { $0.user == "sam" }?.scanRank == 2, "deck is second in sam's list")
            #expect(deck.members.first { $0.user == "ann" }?.scanRank == nil)

            let deckPackets = try tonePackets(60)  // 1.2 s
            let bridgePackets = Array(try tonePackets(15).reversed())  // 0.3 s, told apart from deck's
            async let samDeckHeard = collect(samDeck.media, count: 1_000, timeout: .seconds(4))
            async let samBridgeHeard = collect(samBridge.media, count: bridgePackets.count)
            async let danHeard = collect(dan.media, count: deckPackets.count)
            // Ann talks in deck; at her 15th packet cap talks in bridge, for 0.3 s.
            let cap15 = CapTalk(cap, bridgePackets)
            // At her 15th packet ann waits until sam hears bridge, at her 30th until bridge's burst is over and sam hears
            // deck again: packets 15 to 29 come while bridge is heard, the rest after the switch back, however slow
            // this run is.
            let switches = SwitchLog()
            try await Self.talk(ann, deckPackets, start: 0x1000_0000) { index in
                if index == 15 {
                    // Deck goes on only once sam hears bridge: her next packets come while bridge is heard.
                    cap15.start()
                    for _ in 0..<2 { switches.append(try await Self.hearing(samDeck.peer)) }
                }
                if index == 30 {
                    try await cap15.finished()
                    switches.append(try await Self.hearing(samDeck.peer))
                }
            }
            _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))

            #expect(switches.names == ["deck", "bridge", "deck"], "deck, bridge, then deck again")
            #expect(await samBridgeHeard.map(\.payload) == bridgePackets, "bridge from its first packet, every one")
            #expect(await danHeard.count == deckPackets.count, "dan, not scanning, hears all of deck")
            let heardOnDeck = await samDeckHeard.map(\.payload)
            // Deck's packets before bridge began, none while it talked (and its grace), then the rest, live.
            let first = try #require(heardOnDeck.first.flatMap { deckPackets.firstIndex(of: $0) })
            #expect(first == 0, "deck was heard from its first packet")
            let missing = deckPackets.count - heardOnDeck.count
            #expect(missing > 0, "sam heard \(heardOnDeck.count) of deck's \(deckPackets.count) packets")
            #expect(
                Array(heardOnDeck.suffix(30)) == Array(deckPackets[30...]),
                "after the switch back, deck live to its end")
            // In order, a subsequence of what ann said: nothing twice, nothing out of place.
            var cursor = 0
            for packet in heardOnDeck {
                guard let at = deckPackets[cursor...].firstIndex(of: packet) else {
                    Issue.record("a deck packet out of order")
                    break
                }
                cursor = at + 1
            }
            for talker in sam + [ann, cap, dan] { await talker.media.close() }
        }
    }

    @Test(
        "with resume catch-up, the lower channel resumes from the first packet the scanning listener missed: it hears all of it"
    )
    func lowerResumesWithCatchUp() async throws {
        try await withTestServer(configure: {
            $0.implicitFloorRequest = false
            $0.floor.endOfMediaTimeout = .seconds(60)
            $0.catchUp.mode = .woken  // bursts are kept; a scan list's catch-up needs nothing more
        }) { server in
            let sam = try await BroadcastTests.member(server, "sam", in: ["bridge", "deck"])
            let (samBridge, samDeck) = (sam[0], sam[1])
            let ann = try await BroadcastTests.member(server, "ann", in: ["deck"])[0]
            let cap = try await BroadcastTests.member(server, "cap", in: ["bridge"])[0]
            let reply = try await samDeck.peer.request(
                .scan(ScanRequest(channels: ["bridge", "deck"], resume: .catchUp)))
            guard case .scanSet(let set) = reply else { throw TestFailure("got \(reply.type)") }
            #expect(set.resume == .catchUp)

            let deckPackets = try tonePackets(75)  // 1.5 s
            let bridgePackets = Array(try tonePackets(10).reversed())
            async let samDeckHeard = collect(samDeck.media, count: deckPackets.count, timeout: .seconds(6))
            async let samBridgeHeard = collect(samBridge.media, count: bridgePackets.count)
            let cap15 = CapTalk(cap, bridgePackets)
            // At her 15th packet ann waits until sam hears bridge, at her 30th until bridge's burst is over and sam hears
            // deck again: packets 15 to 29 come while bridge is heard, the rest after the switch back, however slow
            // this run is.
            let switches = SwitchLog()
            try await Self.talk(ann, deckPackets, start: 0x1000_0000) { index in
                if index == 15 {
                    // Deck goes on only once sam hears bridge: her next packets come while bridge is heard.
                    cap15.start()
                    for _ in 0..<2 { switches.append(try await Self.hearing(samDeck.peer)) }
                }
                if index == 30 {
                    try await cap15.finished()
                    switches.append(try await Self.hearing(samDeck.peer))
                }
            }
            #expect(await samBridgeHeard.map(\.payload) == bridgePackets)
            #expect(
                await samDeckHeard.map(\.payload) == deckPackets,
                "deck in full: what was said while bridge talked came after it, caught up")
            #expect(switches.names == ["deck", "bridge", "deck"], "bridge was heard in between")
            let metrics = try await server.admin.getText("/metrics")
            #expect((metricValue(metrics, "ptt_catchup_started_total") ?? 0) >= 1, "deck was caught up with")
            _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            for talker in sam + [ann, cap] { await talker.media.close() }
        }
    }

    @Test("a scan list names only this device's channels, each once; an empty one stops scanning")
    func refusals() async throws {
        try await withTestServer { server in
            let sam = try await BroadcastTests.member(server, "sam", in: ["bridge", "deck"])
            _ = try await BroadcastTests.member(server, "ann", in: ["galley"])
            for (channels, code) in [
                (["bridge", "galley"], ErrorCode.notAMember), (["bridge", "hold"], .noSuchChannel),
                (["deck", "deck"], .badRequest),
            ] {
                do {
                    let reply = try await sam[0].peer.request(.scan(ScanRequest(channels: channels)))
                    Issue.record("\(channels) accepted: \(reply.type)")
                } catch ControlClientError.refused(let error) {
                    #expect(error.code == code, "\(channels): \(error.message)")
                }
            }
            let reply = try await sam[0].peer.request(.scan(ScanRequest(channels: [])))
            guard case .scanSet(let set) = reply else { throw TestFailure("got \(reply.type)") }
            #expect(set.channels.isEmpty)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, "ptt_scan_lists") == 0, "the empty list stopped scanning")
            for talker in sam { await talker.media.close() }
        }
    }
}

/// Cap's burst on bridge, started while ann talks (at one of her packets, not after a sleep) and awaited after.
final class CapTalk: @unchecked Sendable {
    // @unchecked: `task` is set once, by the talking loop, before `finished()` reads it on the same task.
    private let cap: Talker
    private let packets: [[UInt8]]
    private var task: Task<Void, Error>?

    init(_ cap: Talker, _ packets: [[UInt8]]) {
        self.cap = cap
        self.packets = packets
    }

    func start() {
        let (cap, packets) = (cap, packets)
        task = Task {
            try await ScanTests.talk(cap, packets, start: 0x3000_0000)
            _ = try await cap.peer.request(.floorRelease(FloorCommand(channel: "bridge")))
        }
    }

    func finished() async throws {
        guard let task else { throw TestFailure("cap never started") }
        try await task.value
    }
}

/// The channels a scanning peer was told it hears, in order (written by the talking loop, read after it).
final class SwitchLog: @unchecked Sendable {
    // @unchecked: written and read by the one test task, in turn.
    private(set) var names: [String?] = []
    func append(_ name: String?) { names.append(name) }
}
