import Foundation
import PTTKit
import PTTProtocol
import PTTServer
import TestSupport
import Testing

/// Talking across nodes: the owner runs the floor for members anywhere, and audio crosses the node links once per
/// node.
extension ClusterTests {
    /// A member on a node, with its media open.
    struct Member {
        var node: Node
        var talker: Talker
        var name: String
    }

    /// Users made on `first`, known to every node.
    static func users(_ names: [String], on first: Node, known nodes: [Node]) async throws -> [String: String] {
        var secrets: [String: String] = [:]
        for name in names {
            let added: AddUserResponse = try await first.admin.post("/api/users", body: AddUserRequest(name: name))
            secrets[name] = added.secret
        }
        _ = try await eventually("users on every node") {
            for node in nodes {
                let users: [UserStatus] = try await node.admin.get("/api/users")
                if users.count != names.count { return false }
            }
            return true
        }
        return secrets
    }

    /// Joins `channel` on `node` (`creates`: the first join, which makes it) and opens media; waits until that
    /// node's relay hears the member.
    static func member(
        _ name: String, secret: String, on node: Node, channel: String = "deck", creates: Bool = false
    ) async throws -> Member {
        let peer = try await node.connect(name, secret: secret)
        if !creates {
            _ = try await eventually("\(node.name) knows \(channel)") {
                try await node.exists("/api/channels/\(channel)")
            }
        }
        let reply = try await peer.request(.join(Join(channel: channel)))
        guard case .joined(let joined) = reply else { throw TestFailure("expected joined, got \(reply.type)") }
        let media = try await MediaSession.open(host: "127.0.0.1", parameters: joined.media)
        _ = try await eventually("\(node.name) hears \(name)") {
            let detail: ChannelDetail = try await node.admin.get("/api/channels/\(channel)")
            return detail.members.first { $0.user == name }?.audioReachable == true
        }
        return Member(node: node, talker: Talker(peer: peer, joined: joined, media: media), name: name)
    }

    /// Waits until each node sends the channel's audio where it should: the owner to every other node, each other
    /// node to the owner.
    static func linked(_ owner: Node, _ others: [Node], channel: String = "deck") async throws -> Duration {
        var seen: [String: [String]] = [:]
        do {
            return try await eventually("deck's audio linked between nodes", timeout: .seconds(10)) {
                for node in [owner] + others {
                    let detail: ChannelDetail = try await node.admin.get("/api/channels/\(channel)")
                    seen[node.name] = detail.nodeLinks
                }
                return seen[owner.name] == others.map(\.name).sorted()
                    && others.allSatisfy { seen[$0.name] == [owner.name] }
            }
        } catch {
            let logs = ([owner] + others).map { "\($0.name):\n\($0.daemon.standardError.suffix(3000))" }
            throw TestFailure("\(error); links seen: \(seen)\n\(logs.joined(separator: "\n"))")
        }
    }

    /// Sends `packets` from `speaker` at 20 ms; every listener must get each of them, in order, as its own stream.
    static func talk(_ packets: [[UInt8]], from speaker: Member, to listeners: [Member]) async throws {
        let heard = listeners.map { listener in
            Task { await collect(listener.talker.media, count: packets.count) }
        }
        var timestamp = UInt32.random(in: 0...UInt32.max)
        for (index, packet) in packets.enumerated() {
            try speaker.talker.media.send(opus: packet, timestamp: timestamp, marker: index == 0)
            timestamp &+= 960
            try await Task.sleep(for: .milliseconds(20))
        }
        for (listener, task) in zip(listeners, heard) {
            let got = await task.value
            #expect(
                got.map(\.payload) == packets,
                "\(listener.name) on \(listener.node.name) got \(got.count) of \(packets.count) from \(speaker.name) on \(speaker.node.name)"
            )
            guard got.count == packets.count else { continue }
            #expect(got.allSatisfy { $0.ssrc == listener.talker.joined.media.listenSSRC })
            #expect(got.allSatisfy { $0.speakerSSRC == speaker.talker.ssrc })
            #expect(got[0].marker)
            for (a, b) in zip(got, got.dropFirst()) {
                #expect(b.sequenceNumber == a.sequenceNumber &+ 1)
                #expect(b.timestamp == a.timestamp &+ 960)
            }
        }
    }

    @Test(
        "three nodes: the owner runs the floor for members on every node, and a talk on one node reaches listeners on the others packet for packet; after the owner is killed, another node takes over and talking works again"
    )
    func talkAcrossNodes() async throws {
        let cluster = try await Self.cluster("n1", "n2", "n3", users: ["alice", "bob", "carol"])
        defer { cluster.kill() }
        let (n1, n2, n3) = (cluster.nodes[0], cluster.nodes[1], cluster.nodes[2])

        let alice = try await cluster.founder("alice", on: n1)
        let bob = try await cluster.member("bob", on: n2)
        let carol = try await cluster.member("carol", on: n3)
        let ready = try await Self.linked(n1, [n2, n3])
        print("cluster: deck's audio linked across three nodes \(ready) after the last join")
        // The owner knows that the members on the other nodes are heard there: it will not wake them.
        _ = try await Self.eventually("n1 shows bob and carol reachable") {
            let detail: ChannelDetail = try await n1.admin.get("/api/channels/deck")
            return detail.members.filter(\.audioReachable).map(\.user).sorted() == ["alice", "bob", "carol"]
        }

        // Alice (n1, the owner) talks; bob (n2) and carol (n3) hear every packet.
        let granted = try await alice.talker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
        #expect(granted.type == "floor-granted")
        for listener in [bob, carol] {
            guard case .floorTaken(let taken) = try await listener.talker.peer.next("floor-taken") else {
                throw TestFailure("expected floor-taken")
            }
            #expect(taken.member.user == "alice", "\(listener.name) on \(listener.node.name) is told who talks")
        }
        // A captured talk burst (fixtures/burst-20ms-mono.opus), its first 50 frames.
        let held = Array(try Fixtures.opus("burst-20ms-mono.opus").packets.prefix(50).map(\.data))
        try await Self.talk(held, from: alice, to: [bob, carol])
        let afterTalk: ChannelDetail = try await n1.admin.get("/api/channels/deck")
        #expect(afterTalk.members.allSatisfy { $0.lastWake == nil }, "nobody connected somewhere was woken")

        // Carol (n3) asks while alice talks: the owner queues her, and the answer reaches her request.
        let queued = try await carol.talker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
        guard case .floorQueued(let position) = queued else {
            throw TestFailure("expected floor-queued, got \(queued.type)")
        }
        #expect(position.position == 1)
        // Every node shows the owner's floor (n2 learns it from the floor event that queued carol).
        _ = try await Self.eventually("n2 shows carol queued behind alice") {
            let detail: ChannelDetail = try await n2.admin.get("/api/channels/deck")
            return detail.floor == .taken && detail.speaker?.user == "alice"
                && detail.queue.map(\.member) == [carol.talker.joined.member.id]
        }

        // Alice releases: carol gets the floor from the queue, and her talk crosses n3 → n1 → n2.
        _ = try await alice.talker.peer.request(.floorRelease(FloorCommand(channel: "deck")))
        _ = try await carol.talker.peer.next("floor-granted")
        try await Self.talk(try tonePackets(40), from: carol, to: [alice, bob])
        let sent = try await n1.metric("ptt_media_link_packets_sent_total")
        let received = try await n1.metric("ptt_media_link_packets_received_total")
        #expect(sent == Double(50 * 2 + 40), "n1 sent alice's talk to two nodes and carol's to one, got \(sent ?? -1)")
        #expect(received == Double(40), "n1 received carol's talk once, got \(received ?? -1)")
        #expect(try await n3.metric("ptt_media_link_packets_sent_total") == Double(40))

        // The owner dies in the middle of carol's next burst: a node with members takes deck, its floor is idle
        // and the members are told; bob talks, carol hears every packet.
        let burst = Task {
            var timestamp = UInt32.random(in: 0...UInt32.max)
            for (index, packet) in try tonePackets(50).enumerated() {
                try carol.talker.media.send(opus: packet, timestamp: timestamp, marker: index == 0)
                timestamp &+= 960
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        n1.daemon.signal(SIGKILL)
        let killed = ContinuousClock.now
        for listener in [bob, carol] {
            _ = try await listener.talker.peer.next("floor-idle", timeout: .seconds(10))
        }
        var newOwner: String?
        _ = try await Self.eventually("deck owned again", timeout: .seconds(10)) {
            newOwner = try await Self.owner(of: "deck", on: n2)
            return newOwner == "n2" || newOwner == "n3"
        }
        let (owner, other) = newOwner == "n2" ? (n2, n3) : (n3, n2)
        _ = try await Self.linked(owner, [other])
        let failover = ContinuousClock.now - killed
        print("cluster failover: deck owned by \(owner.name) and linked again \(failover) after its owner was killed")
        try await burst.value
        // Carol ends her burst as a client does; if her last packets reached the new owner, they took the idle
        // floor for her (an implicit request), and her release frees it: bob gets it at once, or right after.
        _ = try await carol.talker.peer.request(.floorRelease(FloorCommand(channel: "deck")))
        let again = try await bob.talker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
        if again.type == "floor-queued" {
            _ = try await bob.talker.peer.next("floor-granted")
        } else {
            #expect(again.type == "floor-granted", "got \(again.type)")
        }
        try await Self.talk(try tonePackets(30), from: bob, to: [carol])
        let channels: [ChannelSummary] = try await n2.admin.get("/api/channels")
        #expect(channels.first { $0.name == "deck" }?.members == 3, "no membership was lost")
        try await Self.stop([n2, n3])
    }

    @Test(
        "the owner wakes a member whose Local Push connection is on another node, through that node; a member heard anywhere is not woken"
    )
    func wakesAcrossNodes() async throws {
        let cluster = try await Self.cluster("n1", "n2", users: ["alice", "bob", "dave"])
        defer { cluster.kill() }
        let (n1, n2) = (cluster.nodes[0], cluster.nodes[1])
        let alice = try await cluster.founder("alice", on: n1)
        let bob = try await cluster.member("bob", on: n2)
        // Dave's app is suspended: only his Local Push extension is connected, to n2.
        let dave = try await cluster.connect("dave", on: n2, role: .pushProvider)
        let daveJoined = try await dave.join("deck")
        _ = try await Self.eventually("n1 can wake dave through n2, and hears bob there") {
            let detail: ChannelDetail = try await n1.admin.get("/api/channels/deck")
            let members = Dictionary(uniqueKeysWithValues: detail.members.map { ($0.user, $0) })
            return members["dave"]?.wakeRoute == .localPush && members["dave"]?.audioReachable == false
                && members["bob"]?.audioReachable == true
        }

        let granted = try await alice.talker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
        #expect(granted.type == "floor-granted")
        guard case .push(let wake) = try await dave.next("push") else { throw TestFailure("not a push") }
        #expect(wake.pushType == .pushToTalk && wake.priority == 10 && wake.expiration == 0)
        #expect(wake.payload.channel == daveJoined.channel.id && wake.payload.activeSpeaker == "alice")
        _ = try await bob.talker.peer.next("floor-taken")
        let onTwo: ChannelDetail = try await n2.admin.get("/api/channels/deck")
        #expect(onTwo.members.first { $0.user == "dave" }?.lastWake?.outcome == .sent, "n2 wrote the wake")
        #expect(onTwo.members.first { $0.user == "bob" }?.lastWake == nil, "bob, heard on n2, was not woken")
        try await Self.stop([n1, n2])
    }
}
