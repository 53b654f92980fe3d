import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer
@testable import PTTStore

/// A database written by the previous release (schema up to `v5-recordings`, by its own pttd, pttctl and ptt:
/// fixtures/upgrade/make-v5-database.sh) opened by this one: migrated at start, it serves the same users,
/// channels and memberships, and the newer features work on it.
@Suite("Upgrade from the previous release's database", .timeLimit(.minutes(2)))
struct UpgradeTests {
    static let fixture = Fixtures.path("upgrade/v5-pttd.sqlite")
    /// The last migration the previous release applied.
    static let oldSchema = "v5-recordings"

    /// A user as the script added it.
    struct UserRow: Equatable, CustomStringConvertible {
        var name: String
        var priority: Int
        var receiveOnly: Bool
        var memberships: Int
        var description: String { "\(name) (\(priority), \(receiveOnly ? "receive-only, " : "")\(memberships))" }
    }

    /// A membership as the script joined it.
    struct MemberRow: Hashable, CustomStringConvertible {
        var user: String
        var device: String
        var channel: String
        var name: String
        var receiveOnly: Bool
        var suite: String
        var memberEvents: Bool
        var description: String {
            "\(user)/\(device) in \(channel) as \(name)\(receiveOnly ? " receive-only" : ""), \(suite), events \(memberEvents)"
        }
    }

    static let users = [
        UserRow(name: "alice", priority: 5, receiveOnly: false, memberships: 3),
        UserRow(name: "bob", priority: 0, receiveOnly: false, memberships: 2),
        UserRow(name: "carol", priority: 0, receiveOnly: true, memberships: 1),
        UserRow(name: "dave", priority: -3, receiveOnly: false, memberships: 0),
    ]
    /// Channel names, whether each is recorded, and its image.
    static let channels: [String: (recording: Bool, imageURL: String?)] = [
        "bridge": (true, "http://ship.local/bridge.png"), "engine": (false, nil), "galley": (false, nil),
    ]
    static let cm = MediaSuite.aesCM128HMACSHA1_80.rawValue
    static let gcm = MediaSuite.aeadAES128GCM.rawValue
    static let members: Set<MemberRow> = [
        MemberRow(
            user: "alice", device: "alice-phone", channel: "bridge", name: "Captain", receiveOnly: false, suite: cm,
            memberEvents: true),
        MemberRow(
            user: "alice", device: "alice-phone", channel: "engine", name: "alice", receiveOnly: false, suite: cm,
            memberEvents: true),
        MemberRow(
            user: "alice", device: "alice-watch", channel: "engine", name: "Captain (watch)", receiveOnly: false,
            suite: cm, memberEvents: true),
        MemberRow(
            user: "bob", device: "bob-radio", channel: "bridge", name: "Bosun", receiveOnly: false, suite: cm,
            memberEvents: true),
        MemberRow(
            user: "bob", device: "bob-radio", channel: "engine", name: "bob", receiveOnly: true, suite: gcm,
            memberEvents: false),
        MemberRow(
            user: "carol", device: "carol-tablet", channel: "bridge", name: "Cook", receiveOnly: true, suite: cm,
            memberEvents: false),
    ]

    /// What the old server's admin API said of each channel just before it stopped (`v5-channels.json`).
    struct OldChannel: Decodable {
        struct Member: Decodable {
            var id: String
            var name: String
            var user: String
            var device: String
            var priority: Int
            var receiveOnly: Bool
            var ssrc: UInt32
        }
        var id: String
        var name: String
        var imageURL: String?
        var recording: Bool?
        var members: [Member]
    }

    static func oldChannels() throws -> [String: OldChannel] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("upgrade/v5-channels.json")))
        return Dictionary(
            uniqueKeysWithValues: try JSONDecoder().decode([OldChannel].self, from: data).map { ($0.name, $0) })
    }

    /// The users' secrets, as the old server generated them (`v5-secrets.json`).
    static func secrets() throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("upgrade/v5-secrets.json")))
        return try JSONDecoder().decode([String: String].self, from: data)
    }

    /// A new data directory whose database is a copy of the fixture (which itself is never opened for writing).
    static func dataDirectory(database: String = fixture) throws -> String {
        let data = TestServer.temporaryDirectory()
        try FileManager.default.copyItem(atPath: database, toPath: DataDirectory(path: data).database)
        return data
    }

    /// The identifiers of the migrations applied to the store's database, in the order they were.
    static func appliedMigrations(_ store: SQLiteStore) throws -> [String] {
        try store.queue.read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
    }

    @Test("the fixture is the previous release's database: its migrations end at v5-recordings, older than these")
    func fixtureIsOld() throws {
        let copy = DataDirectory(path: try Self.dataDirectory()).database
        let summary = try SQLiteStore.inspect(backup: copy)
        #expect(summary.schema == Self.oldSchema, "the fixture's newest migration")
        #expect(summary.users == Self.users.count)
        #expect(summary.channels == Self.channels.count)
        #expect(summary.memberships == Self.members.count)
        #expect(summary.recordedBursts == 0)
        let known = SQLiteStore.migrator.migrations
        let old = try require_(known.firstIndex(of: Self.oldSchema), "\(Self.oldSchema) among \(known)")
        #expect(old < known.count - 1, "this pttd has migrations the fixture lacks: \(known)")
        // The old server's own answers were written by the same run.
        let channels = try Self.oldChannels()
        #expect(Set(channels.keys) == Set(Self.channels.keys))
        #expect(channels.values.reduce(0) { $0 + $1.members.count } == Self.members.count)
        #expect(Set(try Self.secrets().keys) == Set(Self.users.map(\.name)))
    }

    @Test("the store migrates the old file and loads every row as the old release stored it")
    func storeMigrates() throws {
        let path = DataDirectory(path: try Self.dataDirectory()).database
        let store = try SQLiteStore(path: path)
        #expect(try Self.appliedMigrations(store) == SQLiteStore.migrator.migrations)
        #expect(try store.integrityCheck() == ["ok"])

        let directory = try store.load()
        let users = directory.users.values.map { user in
            UserRow(
                name: user.name, priority: user.priority, receiveOnly: user.receiveOnly,
                memberships: directory.memberships.values.filter { $0.user == user.name }.count)
        }
        #expect(users.sorted { $0.name < $1.name } == Self.users)
        let old = try Self.oldChannels()
        #expect(Set(directory.channels.values.map(\.name)) == Set(Self.channels.keys))
        for channel in directory.channels.values {
            let expected = try require_(Self.channels[channel.name], channel.name)
            #expect(channel.recording == expected.recording, "\(channel.name) recorded")
            #expect(channel.imageURL == expected.imageURL, "\(channel.name) image")
            #expect(channel.id.description == old[channel.name]?.id, "\(channel.name) keeps its id")
        }
        let oldMembers = Dictionary(
            uniqueKeysWithValues: old.values.flatMap(\.members).map { ($0.id, $0) })
        var rows: Set<MemberRow> = []
        for membership in directory.memberships.values {
            let channel = try require_(directory.channels[membership.channel]?.name, "channel of \(membership.id)")
            rows.insert(
                MemberRow(
                    user: membership.user, device: membership.device, channel: channel,
                    name: membership.displayName, receiveOnly: membership.receiveOnly,
                    suite: membership.mediaSuite.rawValue, memberEvents: membership.memberEvents))
            let before = try require_(oldMembers[membership.id.rawValue], "old member \(membership.id)")
            #expect(membership.ssrc == before.ssrc)
            #expect(membership.priority == before.priority)
            #expect(membership.pushToken == nil)
        }
        #expect(rows == Self.members)

        // The announcement the old server stored for bridge's three members, whether or not it has expired since.
        let announcements = try store.loadAnnouncements()
        let bridge = try require_(old["bridge"])
        #expect(Set(announcements.map(\.member.rawValue)) == Set(bridge.members.map(\.id)))
        #expect(announcements.allSatisfy { $0.text == "Muster at station five" && $0.collapseID == "muster" })
    }

    @Test("this pttd started on the old database serves its users, channels and memberships; sign-in links work")
    func daemonServesOldData() async throws {
        let data = try Self.dataDirectory()
        let old = try Self.oldChannels()
        let secrets = try Self.secrets()
        try await withTestServer(data: data) { server in
            let users: [UserStatus] = try await server.admin.get("/api/users")
            #expect(
                users.map {
                    UserRow(
                        name: $0.name, priority: $0.priority, receiveOnly: $0.receiveOnly, memberships: $0.memberships)
                }
                .sorted { $0.name < $1.name } == Self.users)

            let channels: [ChannelSummary] = try await server.admin.get("/api/channels")
            #expect(Set(channels.map(\.name)) == Set(Self.channels.keys))
            for summary in channels {
                let before = try require_(old[summary.name], summary.name)
                let expected = try require_(Self.channels[summary.name])
                let detail: ChannelDetail = try await server.admin.get("/api/channels/\(summary.name)")
                #expect(detail.id == before.id, "\(summary.name) keeps its id")
                #expect(detail.recording == expected.recording, "\(summary.name) recorded")
                #expect(detail.imageURL == expected.imageURL)
                #expect(detail.members.count == before.members.count)
                for member in before.members {
                    let now = try require_(
                        detail.members.first { $0.id == member.id }, "\(member.id) in \(summary.name)")
                    #expect(now.name == member.name && now.user == member.user && now.device == member.device)
                    #expect(now.priority == member.priority && now.receiveOnly == member.receiveOnly)
                    #expect(now.ssrc == member.ssrc)
                    #expect(!now.connected && !now.pushToken)
                }
            }

            // Each device, with its user's old secret, is welcomed with the memberships it held.
            let oldIDs = Dictionary(
                uniqueKeysWithValues: old.values.flatMap { channel in
                    channel.members.map { ("\($0.user)/\($0.device)/\(channel.name)", $0) }
                })
            var welcomed: Set<MemberRow> = []
            for device in Set(Self.members.map { [$0.user, $0.device] }) {
                let (user, device) = (device[0], device[1])
                let peer = try await server.connect(user, secret: try require_(secrets[user]), device: device)
                for joined in peer.welcome.memberships {
                    let before = try require_(oldIDs["\(user)/\(device)/\(joined.channel.name)"], joined.channel.name)
                    #expect(joined.member.id == before.id)
                    #expect(joined.media.ssrc == before.ssrc)
                    welcomed.insert(
                        MemberRow(
                            user: user, device: device, channel: joined.channel.name, name: joined.member.name,
                            receiveOnly: joined.member.receiveOnly, suite: joined.media.suite ?? "none",
                            memberEvents: try require_(joined.memberEvents, "memberEvents")))
                }
                await peer.close()
            }
            #expect(welcomed == Self.members)

            // dave, who had no membership, joins an old channel that had none.
            let dave = try await server.connect("dave", secret: try require_(secrets["dave"]), device: "dave-pager")
            #expect(dave.welcome.memberships.isEmpty)
            let joined = try await dave.join("galley")
            #expect(joined.channel.id == old["galley"]?.id)
            #expect(joined.member.priority == -3)
            await dave.close()

            // A sign-in link (v6) for a user of the old release: the browser's credential signs in as alice and
            // finds the memberships of her phone.
            let link: SignInLinkResponse = try await server.admin.post(
                "/api/users/alice/links", body: SignInLinkRequest())
            #expect(link.user == "alice")
            let web = try require_(server.server.runtimeInfo?.webURL)
            let signIn = try await WebListenerTests.request(
                web + "/api/sign-in", method: .POST, body: #"{"link":"\#(link.token)"}"#)
            #expect(signIn.status == 200, "\(signIn.body)")
            struct SignedIn: Decodable { var user: String, secret: String, channels: [String] }
            let answer = try JSONDecoder().decode(SignedIn.self, from: Data(signIn.body.utf8))
            #expect(answer.user == "alice")
            #expect(
                Set(["bridge", "engine"]).isSubset(of: answer.channels), "her channels come first: \(answer.channels)")
            let browserSecret = answer.secret
            #expect(browserSecret != secrets["alice"])
            let browser = try await server.connect("alice", secret: browserSecret, device: "alice-phone")
            #expect(Set(browser.welcome.memberships.map(\.channel.name)) == ["bridge", "engine"])
            await browser.close()
        }

        // Every migration is applied now, and what was written after the upgrade is stored.
        let path = DataDirectory(path: data).database
        #expect(try SQLiteStore.inspect(backup: path).schema == SQLiteStore.migrator.migrations.last)
        let store = try SQLiteStore(path: path)
        #expect(try Self.appliedMigrations(store) == SQLiteStore.migrator.migrations)
        #expect(try store.loadWebCredentials().map(\.user) == ["alice"])
        let directory = try store.load()
        #expect(directory.memberships.count == Self.members.count + 1)
        #expect(directory.memberships(user: "dave", device: "dave-pager").count == 1)
    }

    @Test("pttd --restore takes the old database as it is; the next start migrates it")
    func restoreOldBackup() async throws {
        // A copy: checking a file opens it (read-only, but SQLite makes a -shm beside a WAL-mode database).
        let backup = TestServer.temporaryDirectory() + "/v5-backup.sqlite"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: backup)
        let data = TestServer.temporaryDirectory()
        let output = try await Subprocess.run("pttd", ["--data", data, "--restore", backup])
        #expect(output.contains("4 users, 3 channels, 6 memberships"), "\(output)")
        #expect(output.contains(Self.oldSchema), "\(output)")
        try await withTestServer(data: data) { server in
            let users: [UserStatus] = try await server.admin.get("/api/users")
            #expect(users.map(\.name).sorted() == Self.users.map(\.name))
            let bridge: ChannelDetail = try await server.admin.get("/api/channels/bridge")
            #expect(bridge.recording == true)
            #expect(bridge.members.count == 3)
        }
        let schema = try SQLiteStore.inspect(backup: DataDirectory(path: data).database).schema
        #expect(schema == SQLiteStore.migrator.migrations.last)
    }
}
