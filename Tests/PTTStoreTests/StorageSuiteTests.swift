import Foundation
import PTTCore
import PTTStore
import PostgresTestSupport
import TestSupport
import Testing

/// The storage interface's contract, checked on both implementations with the same tests: SQLite (one node) and
/// PostgreSQL (a cluster), each test on an empty store that it reopens as a restart would. One test at a time:
/// storage calls block their thread, and many at once would stall other suites' tasks.
@Suite("Storage, on SQLite and on PostgreSQL", .sharedPostgres, .serialized)
struct StorageSuiteTests {
    static let created = Date(timeIntervalSince1970: 1_790_000_000.123_456)

    static func channel(_ name: String, recording: Bool = false) -> PTTCore.Channel {
        PTTCore.Channel(
            id: ChannelID(), name: name, imageURL: recording ? nil : "https://example.com/\(name).png",
            createdAt: created, recording: recording)
    }

    static func user(_ name: String, priority: Int = 0) -> User {
        User(
            name: name, secretHash: Array(repeating: 0xA5, count: 32), salt: [1, 2, 3, 4, 5, 6, 7, 8],
            priority: priority, receiveOnly: priority < 0, createdAt: created)
    }

    static func membership(
        _ user: String, in channel: ChannelID, device: String = "phone", ssrc: UInt32 = 0xDEAD_BEEF,
        token: [UInt8]? = nil
    ) -> Membership {
        Membership(
            id: .random(), channel: channel, user: user, device: device, displayName: "\(user) on \(device)",
            priority: 3, receiveOnly: false, pushToken: token, ssrc: ssrc, mediaKey: Array(0..<30),
            mediaSuite: .aeadAES128GCM, joinedAt: created.addingTimeInterval(0.25), memberEvents: false)
    }

    static func announcement(_ id: String, for member: Membership, collapse: String? = nil) -> StoredAnnouncement {
        StoredAnnouncement(
            id: id, member: member.id, channel: member.channel, collapseID: collapse, text: "muster at 14:00",
            createdAt: created, expiresAt: created.addingTimeInterval(3600))
    }

    @Test("an empty store loads empty, and opening it again migrates nothing twice", arguments: StorageBackend.allCases)
    func emptyStore(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            for _ in 0..<2 {
                try place.withStorage { store in
                    let directory = try store.load()
                    #expect(directory.channels.isEmpty && directory.users.isEmpty && directory.memberships.isEmpty)
                    #expect(try store.loadAnnouncements().isEmpty)
                    #expect(try store.allBursts().isEmpty)
                    #expect(try store.loadWebCredentials().isEmpty)
                    #expect(try store.burstTotals().bytes == 0 && store.burstTotals().oldest == nil)
                }
            }
        }
    }

    @Test("what is written reads back exactly after a reopening, every field", arguments: StorageBackend.allCases)
    func roundTrip(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            let deck = Self.channel("deck")
            var bridge = Self.channel("bridge", recording: true)
            var alice = Self.user("alice", priority: 5)
            alice.rights = [.emergency, .broadcast]
            let bob = Self.user("bob", priority: -1)
            let a = Self.membership("alice", in: deck.id, ssrc: 0xFFFF_FFFF, token: [9, 8, 7])
            let b = Self.membership("bob", in: bridge.id, device: "tablet", ssrc: 1)
            bridge.emergency = ChannelEmergency(
                level: .imminentPeril, member: b.id, user: "bob", since: Self.created.addingTimeInterval(2.5))
            try place.withStorage { store in
                try store.write([.putChannel(deck), .putChannel(bridge), .putUser(alice), .putUser(bob)])
                try store.write([.putMembership(a), .putMembership(b)])
            }
            try place.withStorage { store in
                let directory = try store.load()
                #expect(directory.channels == [deck.id: deck, bridge.id: bridge])
                #expect(directory.users == ["alice": alice, "bob": bob])
                #expect(directory.memberships == [a.id: a, b.id: b])
                #expect(directory.ssrcs[0xFFFF_FFFF] == a.id, "an SSRC above 2^31 survives")
            }
        }
    }

    @Test("writing a record again updates it and keeps when it was made", arguments: StorageBackend.allCases)
    func upsert(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            let deck = Self.channel("deck")
            var alice = Self.user("alice")
            var member = Self.membership("alice", in: deck.id)
            try place.withStorage { store in
                try store.write([.putChannel(deck), .putUser(alice), .putMembership(member)])
                var renamed = deck
                renamed.name = "main-deck"
                renamed.recording = true
                renamed.imageURL = nil
                renamed.createdAt = Date(timeIntervalSince1970: 1)
                renamed.emergency = ChannelEmergency(
                    level: .emergency, member: member.id, user: "alice", since: Self.created)
                alice.priority = 9
                alice.rights = [.emergency]
                alice.salt = [42]
                member.pushToken = [1, 2, 3]
                member.displayName = "Alice"
                member.mediaKey = Array(repeating: 7, count: 30)
                member.memberEvents = true
                try store.write([.putChannel(renamed), .putUser(alice), .putMembership(member)])
            }
            try place.withStorage { store in
                let directory = try store.load()
                let channel = try #require(directory.channels[deck.id])
                #expect(channel.name == "main-deck" && channel.recording && channel.imageURL == nil)
                #expect(channel.emergency?.level == .emergency && channel.emergency?.member == member.id)
                #expect(channel.createdAt == deck.createdAt, "a channel keeps when it was made")
                #expect(directory.users["alice"] == alice)
                #expect(directory.memberships[member.id] == member)
                // Cleared: the emergency's columns are emptied, not left behind.
                var cleared = channel
                cleared.emergency = nil
                cleared.emergencyCleared = EmergencyClearing(by: .declarer, name: "Alice")
                try store.write([.putChannel(cleared)])
            }
            try place.withStorage { store in
                let reloaded = try store.load()
                #expect(reloaded.channels[deck.id] != nil && reloaded.channels[deck.id]?.emergency == nil)
                #expect(
                    reloaded.channels[deck.id]?.emergencyCleared == EmergencyClearing(by: .declarer, name: "Alice"),
                    "who cleared it is kept, for a cluster's other nodes")
            }
        }
    }

    @Test("a batch that fails is stored not at all, and says why", arguments: StorageBackend.allCases)
    func atomicBatch(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            let deck = Self.channel("deck")
            try place.withStorage { store in
                try store.write([.putChannel(deck), .putUser(Self.user("alice"))])
                let first = Self.membership("alice", in: deck.id)
                try store.write([.putMembership(first)])
                // A second membership of the same device in the same channel breaks a uniqueness rule: the batch
                // (a new channel first) must leave nothing behind.
                let other = Self.channel("other")
                let duplicate = Self.membership("alice", in: deck.id, ssrc: 77)
                do {
                    try store.write([.putChannel(other), .putMembership(duplicate)])
                    Issue.record("a duplicate membership was stored")
                } catch {
                    let words = store.describe(error).lowercased()
                    #expect(words.contains("unique") || words.contains("duplicate"), "\(words)")
                }
                let directory = try store.load()
                #expect(Set(directory.channels.keys) == [deck.id], "the failed batch's channel is not stored")
                #expect(Set(directory.memberships.keys) == [first.id])
                // The store goes on after a failure.
                try store.write([.putChannel(other)])
                #expect(try store.load().channels.count == 2)
            }
        }
    }

    @Test(
        "removing a user or a channel removes what hangs on it, and only that",
        arguments: StorageBackend.allCases)
    func cascades(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            try place.withStorage { store in
                let deck = Self.channel("deck")
                let bridge = Self.channel("bridge")
                let alice = Self.membership("alice", in: deck.id, ssrc: 1)
                let aliceOnBridge = Self.membership("alice", in: bridge.id, ssrc: 2)
                let bob = Self.membership("bob", in: deck.id, ssrc: 3)
                let bobOnBridge = Self.membership("bob", in: bridge.id, ssrc: 4)
                try store.write([
                    .putChannel(deck), .putChannel(bridge), .putUser(Self.user("alice")), .putUser(Self.user("bob")),
                    .putMembership(alice), .putMembership(aliceOnBridge), .putMembership(bob),
                    .putMembership(bobOnBridge),
                ])
                try store.write([
                    .put(Self.announcement("n1", for: alice)), .put(Self.announcement("n2", for: bob)),
                    .put(Self.announcement("n3", for: bobOnBridge)),
                ])
                let now = Self.created
                try store.insertSignInLink(
                    StoredSignInLink(tokenHash: [1], user: "alice", createdAt: now, expiresAt: now + 600))
                _ = try store.redeemSignInLink(
                    tokenHash: [1], now: now,
                    credential: { WebCredential(user: $0, secretHash: [5], salt: [6], createdAt: now) }, keep: 4)
                try store.insertSignInLink(
                    StoredSignInLink(tokenHash: [2], user: "alice", createdAt: now, expiresAt: now + 600))

                try store.write([.removeUser("alice")])
                var directory = try store.load()
                #expect(Set(directory.memberships.keys) == [bob.id, bobOnBridge.id])
                #expect(Set(try store.loadAnnouncements().map(\.id)) == ["n2", "n3"])
                #expect(try store.loadWebCredentials().isEmpty, "alice's browser credential went with her")
                let link = try store.redeemSignInLink(
                    tokenHash: [2], now: now,
                    credential: { WebCredential(user: $0, secretHash: [5], salt: [6], createdAt: now) }, keep: 4)
                #expect(link == nil, "alice's unused link went with her")

                try store.write([.removeChannel(bridge.id)])
                directory = try store.load()
                #expect(Set(directory.memberships.keys) == [bob.id])
                #expect(try store.loadAnnouncements().map(\.id) == ["n2"])
                #expect(directory.users.keys.sorted() == ["bob"])

                try store.write([.removeMembership(bob.id)])
                #expect(try store.load().memberships.isEmpty)
                #expect(try store.loadAnnouncements().isEmpty)
            }
        }
    }

    @Test("announcements are stored, replaced by id and removed", arguments: StorageBackend.allCases)
    func announcements(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            let deck = Self.channel("deck")
            let member = Self.membership("alice", in: deck.id)
            let first = Self.announcement("n1", for: member, collapse: "muster")
            var second = Self.announcement("n2", for: member)
            try place.withStorage { store in
                try store.write([.putChannel(deck), .putUser(Self.user("alice")), .putMembership(member)])
                try store.write([.put(first), .put(second)])
                second.text = "muster at 15:00"
                second.collapseID = "muster"
                try store.write([.put(second), .remove(id: "n1")])
            }
            try place.withStorage { (store) throws in
                #expect(try store.loadAnnouncements() == [second])
            }
        }
    }

    @Test(
        "recorded bursts: ids, files, ends, queries by channel and time, totals, removal",
        arguments: StorageBackend.allCases)
    func bursts(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            let deck = ChannelID()
            let bridge = ChannelID()
            func burst(_ channel: ChannelID, at seconds: Double) -> RecordedBurst {
                RecordedBurst(
                    id: 0, channel: channel, channelName: "deck", speaker: "m1", speakerName: "Alice",
                    startedAt: Self.created.addingTimeInterval(seconds), file: "bursts/{id}.opus")
            }
            var ids: [Int64] = []
            try place.withStorage { store in
                for (index, channel) in [deck, deck, bridge, deck].enumerated() {
                    let stored = try store.insertBurst(burst(channel, at: Double(index) * 10))
                    #expect(stored.file == "bursts/\(stored.id).opus")
                    #expect(stored.state == .recording)
                    ids.append(stored.id)
                }
                #expect(Set(ids).count == 4 && ids == ids.sorted(), "ids are new and increasing")
                try store.finishBurst(ids[0], durationMs: 1500, packets: 75, bytes: 6000, state: .complete)
                try store.finishBurst(ids[1], durationMs: 200, packets: 10, bytes: 800, state: .recovered)
            }
            try place.withStorage { store in
                let first = try #require(try store.burst(ids[0]))
                #expect(
                    first.durationMs == 1500 && first.packets == 75 && first.bytes == 6000 && first.state == .complete)
                #expect(first.startedAt == Self.created && first.speakerName == "Alice")
                #expect(try store.burst(999_999) == nil)
                #expect(try store.bursts(in: deck).map(\.id) == [ids[3], ids[1], ids[0]], "newest first")
                #expect(try store.bursts(in: deck, limit: 2).map(\.id) == [ids[3], ids[1]])
                #expect(
                    try store.bursts(in: deck, since: Self.created.addingTimeInterval(10)).map(\.id) == [
                        ids[3], ids[1],
                    ])
                #expect(try store.bursts(in: ChannelID()).isEmpty)
                #expect(try store.allBursts().map(\.id) == ids, "oldest first")
                let totals = try store.burstTotals()
                #expect(totals.bytes == 6800 && totals.oldest == Self.created)
                try store.deleteBursts([ids[0], ids[2]])
                try store.deleteBursts([])
                #expect(try store.allBursts().map(\.id) == [ids[1], ids[3]])
                #expect(try store.burstTotals().oldest == Self.created.addingTimeInterval(10))
            }
        }
    }

    @Test(
        "a sign-in link works once, not after its deadline, and keeps a bounded number of credentials",
        arguments: StorageBackend.allCases)
    func signInLinks(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            let now = Self.created
            func credential(_ user: String) -> WebCredential {
                WebCredential(user: user, secretHash: [UInt8](repeating: 3, count: 32), salt: [4], createdAt: now)
            }
            try place.withStorage { store in
                try store.write([.putUser(Self.user("alice"))])
                for token in 1...4 {
                    try store.insertSignInLink(
                        StoredSignInLink(tokenHash: [UInt8(token)], user: "alice", createdAt: now, expiresAt: now + 60))
                }
                let redeemed = try #require(
                    try store.redeemSignInLink(tokenHash: [1], now: now + 1, credential: credential, keep: 2))
                #expect(redeemed.link.user == "alice" && redeemed.link.expiresAt == now + 60)
                let made = try #require(redeemed.credential)
                #expect(made.id > 0 && made.user == "alice")
                #expect(
                    try store.redeemSignInLink(tokenHash: [1], now: now + 1, credential: credential, keep: 2) == nil,
                    "a link works once")
                // Past its deadline a link is used up without giving a credential.
                let late = try #require(
                    try store.redeemSignInLink(tokenHash: [2], now: now + 61, credential: credential, keep: 2))
                #expect(late.credential == nil)
                _ = try store.redeemSignInLink(tokenHash: [3], now: now + 2, credential: credential, keep: 2)
                _ = try store.redeemSignInLink(tokenHash: [4], now: now + 3, credential: credential, keep: 2)
                let kept = try store.loadWebCredentials()
                #expect(kept.count == 2, "only the newest two are kept")
                #expect(!kept.map(\.id).contains(made.id), "the oldest went")
                // A new link drops the links that expired.
                try store.insertSignInLink(
                    StoredSignInLink(tokenHash: [5], user: "alice", createdAt: now, expiresAt: now + 1))
                try store.insertSignInLink(
                    StoredSignInLink(tokenHash: [6], user: "alice", createdAt: now + 10, expiresAt: now + 70))
                #expect(try store.redeemSignInLink(tokenHash: [5], now: now, credential: credential, keep: 2) == nil)
            }
            try place.withStorage { (store) throws in
                #expect(try store.loadWebCredentials().count == 2, "credentials survive a restart")
            }
        }
    }
}
