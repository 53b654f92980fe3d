import Foundation
import Logging
import PTTAdmin
import PTTKit
import PTTProtocol
import PTTServer
import PostgresNIO
import ServerTestSupport
import TestSupport
import Testing

/// Two nodes creating the same channel at once (issue 23, item 15): a join that creates a channel another node has
/// just created adopts that channel; the joins stored with it in the same batch are not lost; a join into a channel
/// another node deletes meanwhile never leaves its member on a row that is gone.
extension ClusterTests {
    /// Sends a `join` for every name at once on `peer`; the answer (or the refusal's words) for each.
    static func joinAll(_ peer: Peer, _ names: [String]) async -> [String: Result<Joined, TestFailure>] {
        await withTaskGroup(of: (String, Result<Joined, TestFailure>).self) { group in
            for name in names {
                group.addTask {
                    do {
                        return (name, .success(try await peer.join(name)))
                    } catch {
                        return (name, .failure(TestFailure("\(name): \(error)")))
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }

    /// The answers, or a failure naming every join that was refused and what each node logged.
    static func joined(
        _ results: [String: Result<Joined, TestFailure>], nodes: [Node]
    ) throws -> [String: Joined] {
        let refused = results.values.compactMap { result -> String? in
            if case .failure(let failure) = result { return failure.description } else { return nil }
        }.sorted()
        guard refused.isEmpty else {
            let logs = nodes.map { "\($0.name):\n\($0.daemon.standardError.suffix(2000))" }
            throw TestFailure(
                "\(refused.count) joins refused:\n\(refused.joined(separator: "\n"))\n\(logs.joined(separator: "\n"))")
        }
        return results.mapValues { try! $0.get() }
    }

    /// Every membership in the database: its id, its channel's id and name, its user.
    static func storedMemberships(
        _ connection: PostgresConnection
    ) async throws -> [(member: String, channel: String, name: String, user: String)] {
        var rows: [(member: String, channel: String, name: String, user: String)] = []
        for try await row in try await connection.query(
            "SELECT m.id, c.id, c.name, m.user_name FROM membership m JOIN channel c ON c.id = m.channel_id",
            logger: Logger(label: "test")
        ).decode((String, String, String, String).self) {
            rows.append((row.0, row.1, row.2, row.3))
        }
        return rows
    }

    @Test(
        "twenty channels created at the same instant by first joins on two nodes: every join succeeds into one channel per name, and the joins batched with them on a node are stored too"
    )
    func simultaneousFirstJoins() async throws {
        let cluster = try await Self.cluster("n1", "n2", users: ["alice", "bob", "carol", "dave"])
        defer { cluster.kill() }
        let (n1, n2) = (cluster.nodes[0], cluster.nodes[1])
        // A device is a member of at most 16 channels: each user joins ten names from each of two devices.
        let alice = try await cluster.connect("alice", on: n1)
        let aliceTablet = try await cluster.connect("alice", on: n1, device: "tablet")
        let carol = try await cluster.connect("carol", on: n1)
        let bob = try await cluster.connect("bob", on: n2)
        let bobTablet = try await cluster.connect("bob", on: n2, device: "tablet")
        let dave = try await cluster.connect("dave", on: n2)

        // Each name joined through both nodes at once; carol's own channels on n1 and dave's on n2 go into the same
        // join batches as alice's and bob's, so a batch that met a conflict must store them too.
        let names = (0..<20).map { "race-\($0)" }
        let solos = (0..<10).map { "solo-\($0)" }
        let owns = (0..<10).map { "own-\($0)" }
        let (first, second) = (Array(names[..<10]), Array(names[10...]))
        async let aliceAnswers = Self.joinAll(alice, first)
        async let aliceTabletAnswers = Self.joinAll(aliceTablet, second)
        async let bobAnswers = Self.joinAll(bob, first)
        async let bobTabletAnswers = Self.joinAll(bobTablet, second)
        async let carolAnswers = Self.joinAll(carol, solos)
        async let daveAnswers = Self.joinAll(dave, owns)
        let (aliceOne, aliceTwo, bobOne, bobTwo, carolResults, daveResults) = await (
            aliceAnswers, aliceTabletAnswers, bobAnswers, bobTabletAnswers, carolAnswers, daveAnswers
        )
        let aliceJoined = try Self.joined(aliceOne.merging(aliceTwo) { $1 }, nodes: [n1, n2])
        let bobJoined = try Self.joined(bobOne.merging(bobTwo) { $1 }, nodes: [n1, n2])
        let carolJoined = try Self.joined(carolResults, nodes: [n1, n2])
        let daveJoined = try Self.joined(daveResults, nodes: [n1, n2])
        #expect(carolJoined.count == solos.count && daveJoined.count == owns.count)

        let connection = try await cluster.server.connect(database: cluster.database)
        defer { Task { try? await connection.close() } }
        let stored = try await Self.storedMemberships(connection)
        for name in names {
            let a = try #require(aliceJoined[name])
            let b = try #require(bobJoined[name])
            #expect(a.channel.id == b.channel.id, "\(name): alice and bob were told of one channel")
            let members = stored.filter { $0.name == name }
            #expect(members.map(\.user).sorted() == ["alice", "bob"], "\(name): \(members)")
            #expect(members.allSatisfy { $0.channel == a.channel.id }, "\(name): both stored in the channel told")
        }
        #expect(Set(stored.map(\.name)).count == names.count + solos.count + owns.count, "one channel per name")

        // Each hears of the other: the second to join counts two members, the first is told of the second.
        let peers = [(alice, aliceTablet, "bob", aliceJoined), (bob, bobTablet, "alice", bobJoined)]
        _ = try await Self.eventually("each first member told of the second") {
            for (phone, tablet, other, answers) in peers {
                for name in names where answers[name]!.memberCount == 1 {
                    let told = await (first.contains(name) ? phone : tablet).pending().contains { message in
                        guard case .memberJoined(let event) = message else { return false }
                        return event.channel.name == name && event.member.user == other
                    }
                    if !told { return false }
                }
            }
            return true
        }
        for node in [n1, n2] {
            _ = try await Self.eventually("\(node.name) counts two members in every race channel") {
                let channels: [ChannelSummary] = try await node.admin.get("/api/channels")
                return names.allSatisfy { name in channels.first { $0.name == name }?.members == 2 }
            }
            #expect(!node.daemon.standardError.contains("Generic description"), "PostgreSQL's words are logged")
        }
        let replans = [n1, n2].map { $0.daemon.standardError.components(separatedBy: "planning it again").count - 1 }
        print("cluster first joins: join batches planned again after another node's change: \(replans)")
        try await Self.stop([n1, n2])
    }

    @Test(
        "a channel deleted on one node while members join it on both nodes: every join succeeds, and no member is left in a channel that is gone"
    )
    func joinsRaceADelete() async throws {
        let cluster = try await Self.cluster("n1", "n2", users: ["alice", "bob"])
        defer { cluster.kill() }
        let (n1, n2) = (cluster.nodes[0], cluster.nodes[1])
        let alice = try await cluster.connect("alice", on: n1)
        let bob = try await cluster.connect("bob", on: n2)
        let admin = try n1.admin

        var answers: [(peer: Peer, user: String, joined: Joined)] = []
        for round in 0..<10 {
            let name = "gone-\(round)"
            let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: name))
            _ = try await Self.eventually("n2 knows \(name)") { try await n2.exists("/api/channels/\(name)") }
            // The delete and both joins at once: a join may land before the delete (and be ended by it), or after
            // it, on a node that has not heard of the delete yet (and create the channel again).
            async let deleted: Void = admin.perform(.DELETE, "/api/channels/\(name)")
            async let aliceAnswer = Self.joinAll(alice, [name])
            async let bobAnswer = Self.joinAll(bob, [name])
            let (_, a, b) = try await (deleted, aliceAnswer, bobAnswer)
            answers.append((alice, "alice", try Self.joined(a, nodes: [n1, n2])[name]!))
            answers.append((bob, "bob", try Self.joined(b, nodes: [n1, n2])[name]!))
        }

        // Every member told it joined is, in the end, either stored in that very channel or told it left it.
        let connection = try await cluster.server.connect(database: cluster.database)
        defer { Task { try? await connection.close() } }
        let stored = try await Self.storedMemberships(connection)
        var lost: [String] = []
        do {
            _ = try await Self.eventually("every member stored in its channel, or told it ended") {
                lost = []
                for answer in answers {
                    let (member, channel) = (answer.joined.member.id, answer.joined.channel.id)
                    if stored.contains(where: { $0.member == member && $0.channel == channel }) { continue }
                    let told = await answer.peer.pending().contains { message in
                        guard case .left(let left) = message else { return false }
                        return left.channel.id == channel
                    }
                    if !told { lost.append("\(answer.user) in \(answer.joined.channel.name) (\(channel))") }
                }
                return lost.isEmpty
            }
        } catch {
            let logs = [n1, n2].map { "\($0.name):\n\($0.daemon.standardError.suffix(4000))" }
            throw TestFailure(
                "\(error): \(lost); stored: \(stored)\n\(logs.joined(separator: "\n"))")
        }
        #expect(
            stored.allSatisfy { row in answers.contains { $0.joined.member.id == row.member } },
            "no membership stored that nobody was told of")
        let replans = [n1, n2].map { $0.daemon.standardError.components(separatedBy: "planning it again").count - 1 }
        print("cluster joins racing a delete: join batches planned again after another node's change: \(replans)")
        // Both nodes agree with the database.
        for node in [n1, n2] {
            _ = try await Self.eventually("\(node.name) holds the stored channels") {
                let channels: [ChannelSummary] = try await node.admin.get("/api/channels")
                let counts = Dictionary(grouping: stored, by: \.channel).mapValues(\.count)
                return channels.count == counts.count
                    && channels.allSatisfy { counts[$0.id] == $0.members }
            }
        }
        try await Self.stop([n1, n2])
    }
}
