import Foundation
import Testing

@testable import PTTCore

/// `changes(to:)`: what a cluster node applies after another node changed the stored directory.
@Suite("Directory comparison")
struct DirectoryComparisonTests {
    typealias F = DirectoryFixture

    static func same(_ a: ChannelDirectory, _ b: ChannelDirectory) -> Bool {
        a.channels == b.channels && a.users == b.users && a.memberships == b.memberships && a.ssrcs == b.ssrcs
            && a.channels.keys.allSatisfy { a.members(of: $0).map(\.id) == b.members(of: $0).map(\.id) }
    }

    @Test("equal directories need no change")
    func equal() throws {
        var random = DirectoryRandom(seed: 1)
        var directory = try F.directory(channels: ["deck"], users: [F.user("alice")])
        try F.join(&directory, "deck", user: "alice", random: &random)
        #expect(directory.changes(to: directory).isEmpty)
    }

    @Test("a directory changed elsewhere is reached exactly by applying the changes, in random histories")
    func randomHistories() throws {
        for seed in 1...200 {
            var random = DirectoryRandom(seed: UInt64(seed))
            let names = ["alice", "bob", "carol", "dave"]
            var before = try F.directory(channels: ["deck", "bridge", "galley"], users: names.map { F.user($0) })
            for name in names { try F.join(&before, "deck", user: name, random: &random) }
            try F.join(&before, "bridge", user: "alice", random: &random)
            // Another node's history: members leave, a user and a channel go, others come, a token changes.
            var after = before
            let step = Int(random.next() % 5)
            if step != 0 { after.apply(.removeUser(names[Int(random.next() % 4)])) }
            if step != 1 {
                after.apply(.removeChannel(try F.channelID(after, ["deck", "bridge", "galley"][step % 3])))
            }
            after.apply(.putUser(F.user("erin", priority: Int(random.next() % 7))))
            after.apply(.putChannel(try after.planCreateChannel(name: "hold-\(seed)", now: F.date(5))))
            try F.join(&after, "hold-\(seed)", user: "erin", at: 200, random: &random)
            if let member = after.memberships.values.sorted(by: { $0.id < $1.id }).first {
                var changed = member
                changed.pushToken = [UInt8(seed % 256)]
                changed.displayName = "changed \(seed)"
                after.apply(.putMembership(changed))
            }
            var reached = before
            let changes = before.changes(to: after)
            reached.apply(changes)
            #expect(Self.same(reached, after), "seed \(seed): \(changes)")
            #expect(reached.changes(to: after).isEmpty)
            // The relay's diff of these changes ends exactly the memberships that are gone.
            let gone = Set(before.memberships.keys).subtracting(after.memberships.keys)
            #expect(before.diff(of: changes).removedMembers == gone, "seed \(seed)")
        }
    }
}
