import Foundation
import NIOConcurrencyHelpers
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// Joins that arrive together are stored together (one disk sync for many), yet each member is answered
/// only once its membership is stored, answers keep their order, and every member learns of every other
/// exactly once.
@Suite("Joins stored in batches")
struct JoinBatchTests {
    @Test("members joining at once each learn of every other exactly once: listed in joined or announced after it")
    func everyoneOnce() async throws {
        try await withTestServer { server in
            let count = 40
            var peers: [Peer] = []
            for index in 0..<count {
                let secret = try await server.addUser("u\(index)")
                peers.append(try await server.connect("u\(index)", secret: secret))
            }
            let answers = try await withThrowingTaskGroup(of: (Int, Joined).self) { group in
                for (index, peer) in peers.enumerated() { group.addTask { (index, try await peer.join("deck")) } }
                var answers = [Joined?](repeating: nil, count: count)
                for try await (index, joined) in group { answers[index] = joined }
                return answers.map { $0! }
            }
            let everyone = Set(answers.map(\.member.id))
            #expect(everyone.count == count)
            for (index, peer) in peers.enumerated() {
                let listed = answers[index].members.map(\.id)
                #expect(answers[index].memberCount == listed.count, "fewer than 64 members: all are listed")
                #expect(listed.contains(answers[index].member.id))
                var known = listed
                while Set(known) != everyone {
                    let next = try await peer.next("member-joined")
                    guard case .memberJoined(let event) = next else { throw TestFailure("expected member-joined") }
                    known.append(event.member.id)
                }
                #expect(known.count == count, "member \(index) heard of someone twice: \(known.count) for \(count)")
                try await peer.barrier()
                #expect(
                    await peer.pending().filter { $0.type == "member-joined" }.isEmpty,
                    "member \(index) heard of someone twice")
            }
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.members.count == count)
            let joins = try await server.metric("ptt_joins_total")
            let batches = try await server.metric("ptt_join_batches_total")
            #expect(joins == Double(count))
            #expect(batches >= 1 && batches <= joins)
            for peer in peers { await peer.close() }
        }
    }

    @Test(
        "joins and a floor request sent in one write are answered in order, the floor request after its join is stored")
    func pipelined() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let received = NIOLockedValueBox<[ControlMessage]>([])
            let connection = try await RecordingConnection.connect(to: server.endpoint, tls: nil) { message in
                received.withLockedValue { $0.append(message) }
            }
            try await connection.write([
                .hello(Hello(user: "alice", secret: secret, device: "radio")),
                .join(Join(id: 1, channel: "deck")), .join(Join(id: 2, channel: "galley")),
                .join(Join(id: 3, channel: "deck")),
                .floorRequest(FloorCommand(id: 4, channel: "galley")), .join(Join(id: 5, channel: "bridge")),
            ])
            try await eventually("five answers") { received.withLockedValue { $0.compactMap(\.re).count } >= 5 }
            let answers = received.withLockedValue { $0.filter { $0.re != nil } }
            #expect(answers.map(\.re) == [1, 2, 3, 4, 5])
            #expect(answers.map(\.type) == ["joined", "joined", "joined", "floor-granted", "joined"])
            if case .joined(let first) = answers[0], case .joined(let again) = answers[2] {
                #expect(first.member.id == again.member.id, "the same device joining again keeps its membership")
            }
            await connection.close()
        }
    }
}
