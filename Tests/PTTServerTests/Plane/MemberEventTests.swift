import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// In a large channel a member is told of joins and leaves only if it asked: a channel that fills to N
/// members costs O(N) writes, not O(N²).
@Suite("Member events in large channels")
struct MemberEventTests {
    /// Joins `channel` with an explicit `memberEvents` choice (nil: the server decides).
    private func join(_ peer: Peer, _ channel: String, memberEvents: Bool?) async throws -> Joined {
        let reply = try await peer.request(.join(Join(channel: channel, memberEvents: memberEvents)))
        guard case .joined(let joined) = reply else { throw TestFailure("expected joined, got \(reply.type)") }
        return joined
    }

    /// The `member-joined` / `member-left` events this peer has received and not yet taken, once every event
    /// the server sent it before now has arrived.
    private func memberEvents(_ peer: Peer) async throws -> [String] {
        try await peer.barrier()
        return await peer.pending().compactMap { message in
            switch message {
            case .memberJoined(let event): "joined:\(event.member.user)"
            case .memberLeft(let event): "left:\(event.member.user)"
            default: nil
            }
        }
    }

    @Test(
        "past memberEventsUpTo a member that did not ask is not told; one that asked is, at any size; joined says which"
    )
    func onlyThoseWhoAsk() async throws {
        try await withTestServer(configure: { $0.memberEventsUpTo = 2 }) { server in
            var peers: [String: Peer] = [:]
            for name in ["a", "b", "c", "d", "e"] {
                peers[name] = try await server.connect(name, secret: try await server.addUser(name))
            }
            let told: [String: Bool] = [
                "a": try await join(peers["a"]!, "deck", memberEvents: nil).memberEvents!,  // 1 member
                "b": try await join(peers["b"]!, "deck", memberEvents: nil).memberEvents!,  // 2
                "c": try await join(peers["c"]!, "deck", memberEvents: nil).memberEvents!,  // 3: past the limit
                "d": try await join(peers["d"]!, "deck", memberEvents: true).memberEvents!,
                "e": try await join(peers["e"]!, "deck", memberEvents: false).memberEvents!,
            ]
            #expect(told == ["a": true, "b": true, "c": false, "d": true, "e": false])
            #expect(try await memberEvents(peers["a"]!) == ["joined:b", "joined:c", "joined:d", "joined:e"])
            #expect(try await memberEvents(peers["b"]!) == ["joined:c", "joined:d", "joined:e"])
            #expect(try await memberEvents(peers["c"]!) == [])
            #expect(try await memberEvents(peers["d"]!) == ["joined:e"])

            let left = try await peers["c"]!.request(.leave(Leave(channel: "deck")))
            #expect(left.type == "left")
            for name in ["a", "b", "d"] {
                let events = try await memberEvents(peers[name]!)
                #expect(events.suffix(1) == ["left:c"], "\(name) got \(events)")
            }
            #expect(try await memberEvents(peers["e"]!) == [])

            // A re-join decides again: e asks now, and hears of the next leave.
            #expect(try await join(peers["e"]!, "deck", memberEvents: true).memberEvents == true)
            _ = try await peers["d"]!.request(.leave(Leave(channel: "deck")))
            #expect(try await memberEvents(peers["e"]!) == ["left:d"])
            for peer in peers.values { await peer.close() }
        }
    }

    @Test("the choice is kept with the membership across a restart")
    func keptAcrossRestart() async throws {
        let data = TestServer.temporaryDirectory()
        let secrets = try await withTestServer(data: data, configure: { $0.memberEventsUpTo = 1 }) { first in
            let secrets = [try await first.addUser("a"), try await first.addUser("b")]
            let a = try await first.connect("a", secret: secrets[0], device: "radio")
            let b = try await first.connect("b", secret: secrets[1], device: "radio")
            #expect(try await join(a, "deck", memberEvents: nil).memberEvents == true)
            #expect(try await join(b, "deck", memberEvents: nil).memberEvents == false)
            await a.close()
            await b.close()
            return secrets
        }

        try await withTestServer(data: data, configure: { $0.memberEventsUpTo = 1 }) { second in
            let backA = try await second.connect("a", secret: secrets[0], device: "radio")
            let backB = try await second.connect("b", secret: secrets[1], device: "radio")
            #expect(backA.welcome.memberships.first?.memberEvents == true)
            #expect(backB.welcome.memberships.first?.memberEvents == false)
            let c = try await second.connect("c", secret: try await second.addUser("c"))
            _ = try await join(c, "deck", memberEvents: nil)
            #expect(try await memberEvents(backA) == ["joined:c"])
            #expect(try await memberEvents(backB) == [])
            for peer in [backA, backB, c] { await peer.close() }
        }
    }
}
