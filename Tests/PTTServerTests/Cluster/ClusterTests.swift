import Foundation
import Logging
import NIOHTTP1
import PTTAdmin
import PTTKit
import PTTProtocol
import PTTServer
import PostgresNIO
import PostgresTestSupport
import ServerTestSupport
import TestSupport
import Testing

/// pttd nodes sharing one PostgreSQL (`pttd --cluster URL --node NAME`), as processes: one name per node, the
/// nodes listed from any of them, and one directory: what is made or ended on one node reaches the others, and
/// their members are told.
@Suite(
    "Cluster nodes on PostgreSQL",
    .enabled(if: PostgresServer.unavailable == nil, "PostgreSQL cannot run here: see PostgresServer.unavailable"),
    .sharedPostgres)
struct ClusterTests {
    /// A running node: its process, where it listens, its admin token.
    struct Node {
        var name: String
        var daemon: Subprocess
        var info: RuntimeInfo
        var data: String
        var admin: AdminClient { get throws { try AdminClient.fromDataDirectory(data) } }

        func nodes() async throws -> NodesResponse { try await admin.get("/api/nodes") }

        /// The value of an unlabelled metric on this node's `/metrics`.
        func metric(_ name: String) async throws -> Double? {
            let text = try await admin.getText("/metrics")
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
                Double($0.split(separator: " ").last ?? "")
            }
        }

        /// Whether the admin API finds `path` (a 404 is false; anything else that fails throws).
        func exists(_ path: String) async throws -> Bool {
            do {
                _ = try await admin.getText(path)
                return true
            } catch let error as AdminError where error.error == "not-found" {
                return false
            }
        }

        func connect(
            _ user: String, secret: String, device: String = "phone", role: ClientRole = .app
        ) async throws -> Peer {
            Peer(
                client: try await ControlClient.connect(
                    to: ServerEndpoint(host: "127.0.0.1", port: info.controlPort),
                    hello: Hello(user: user, secret: secret, device: device, role: role, client: "tests"),
                    security: .tls(KnownHosts(path: TestServer.temporaryDirectory() + "/known_hosts")),
                    timeout: .seconds(10).scaled))
        }
    }

    static func start(_ name: String, database url: String, config: String? = nil) async throws -> Node {
        let data = TestServer.temporaryDirectory()
        if let config { try Data(config.utf8).write(to: URL(fileURLWithPath: data + "/config.json")) }
        let (daemon, info) = try await Subprocess.startDaemon(
            data: data,
            arguments: ["--cluster", url, "--node", name, "--control-host", "127.0.0.1", "--link-port", "0"])
        try await daemon.waitForStandardError(containing: "cluster node joined")
        return Node(name: name, daemon: daemon, info: info, data: data)
    }

    /// Polls `check` every 5 ms until it is true; returns how long that took, or throws after `timeout`.
    static func eventually(
        _ what: String, timeout: Duration = .seconds(5), _ check: () async throws -> Bool
    ) async throws -> Duration {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < timeout.scaled {
            if try await check() { return ContinuousClock.now - started }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("\(what): not within \(timeout.scaled)")
    }

    @Test("a node's name is its own; every node lists the others; a killed node shows down, a stopped one stopped")
    func nodesAndNames() async throws {
        let cluster = try await Self.cluster("n1", "n2")
        defer { cluster.kill() }
        let (n1, n2, url) = (cluster.nodes[0], cluster.nodes[1], cluster.url)

        let twin = try Subprocess(
            "pttd",
            [
                "--data", TestServer.temporaryDirectory(), "--cluster", url, "--node", "n1", "--control-port", "0",
                "--media-port", "0", "--admin-port", "0", "--web-port", "0", "--link-port", "0",
            ])
        #expect(try await twin.waitForExit() != 0)
        #expect(twin.standardError.contains("node 'n1' is already running in this cluster"), "\(twin.standardError)")

        for node in [n1, n2] {
            let answer = try await node.nodes()
            #expect(answer.node == node.name)
            #expect(answer.nodes.map(\.name) == ["n1", "n2"] && answer.nodes.allSatisfy(\.alive))
            #expect(answer.nodes[1].control == "127.0.0.1:\(n2.info.controlPort)")
        }
        let listed = try await Subprocess.run("pttctl", ["--data", n2.data, "nodes"])
        #expect(listed.contains("n1") && listed.contains("n2 *") && listed.contains("running"), "\(listed)")

        n2.daemon.signal(SIGKILL)
        let seenDown = try await Self.eventually("n2 shown down on n1") {
            try await n1.nodes().nodes.first { $0.name == "n2" }.map { !$0.alive && $0.stoppedAt == nil } ?? false
        }
        print("cluster: a killed node was shown down by another \(seenDown) after the kill")

        try await Self.stop([n1])
        let n3 = try await Self.start("n3", database: url)
        defer { n3.daemon.signal(SIGKILL) }
        let after = try await n3.nodes().nodes
        #expect(after.first { $0.name == "n1" }.map { !$0.alive && $0.stoppedAt != nil } == true, "n1 stopped cleanly")
        try await Self.stop([n3])
    }

    @Test(
        "users, channels and memberships made on one node reach the others, whose members are told of joins and kicks"
    )
    func oneDirectory() async throws {
        let cluster = try await Self.cluster("n1", "n2")
        defer { cluster.kill() }
        let (n1, n2) = (cluster.nodes[0], cluster.nodes[1])

        let alice: AddUserResponse = try await n1.admin.post("/api/users", body: AddUserRequest(name: "alice"))
        let bob: AddUserResponse = try await n1.admin.post("/api/users", body: AddUserRequest(name: "bob"))
        let propagation = try await Self.eventually("bob known to n2") {
            let users: [UserStatus] = try await n2.admin.get("/api/users")
            return users.map(\.name) == ["alice", "bob"]
        }
        print("cluster: a user added on n1 could sign in on n2 \(propagation) later")

        // Alice on n2, bob on n1, one channel.
        let onTwo = try await n2.connect("alice", secret: alice.secret)
        defer { Task { await onTwo.close() } }
        let joined = try await onTwo.join("deck")
        #expect(joined.memberCount == 1)
        let onOne = try await n1.connect("bob", secret: bob.secret)
        defer { Task { await onOne.close() } }
        _ = try await Self.eventually("n1 knows deck") { try await n1.exists("/api/channels/deck") }
        let bobJoined = try await onOne.join("deck")
        #expect(bobJoined.memberCount == 2, "n1 counts alice, who joined on n2")
        #expect(bobJoined.members.map(\.user).sorted() == ["alice", "bob"])
        let event = try await onTwo.next("member-joined")
        guard case .memberJoined(let joinedEvent) = event else { throw TestFailure("expected memberJoined") }
        #expect(joinedEvent.member.user == "bob", "alice, on n2, is told bob joined on n1")

        // An operator on n1 kicks alice, who is connected to n2.
        try await n1.admin.perform(.DELETE, "/api/channels/deck/members/alice")
        let left = try await onTwo.next("left")
        guard case .left(let leftFrame) = left else { throw TestFailure("expected left") }
        #expect(leftFrame.channel.name == "deck")
        #expect(leftFrame.reason == .removed, "ended through another node: the documented reason")
        let memberLeft = try await onOne.next("member-left")
        guard case .memberLeft(let leftEvent) = memberLeft else { throw TestFailure("expected memberLeft") }
        #expect(leftEvent.member.user == "alice")

        // The user goes on n2: bob's connection to n1 is closed.
        try await n2.admin.perform(.DELETE, "/api/users/bob")
        try await onOne.waitClosed()
        try await Self.stop([n1, n2])
    }

    /// The owner node of `channel` as `node` lists it (nil: no owner now).
    static func owner(of channel: String, on node: Node) async throws -> String? {
        let channels: [ChannelSummary] = try await node.admin.get("/api/channels")
        return channels.first { $0.name == channel }?.owner
    }

    @Test(
        "a channel is owned by its first member's node; killed, a node with members takes it; cut off from the database, a node gives its channels up"
    )
    func ownershipAndFailover() async throws {
        let cluster = try await Self.cluster("n1", "n2", "n3", users: ["alice", "bob", "carol"])
        defer { cluster.kill() }
        let (n1, n2, n3) = (cluster.nodes[0], cluster.nodes[1], cluster.nodes[2])
        let alice = try await cluster.connect("alice", on: n2)
        _ = try await alice.join("deck")
        let owned = try await Self.eventually("deck owned") { try await Self.owner(of: "deck", on: n1) != nil }
        #expect(try await Self.owner(of: "deck", on: n1) == "n2", "the node of deck's first member owns it")
        print("cluster: deck owned \(owned) after its first join")
        #expect(try await n2.metric("ptt_cluster_channels_owned") == 1)
        #expect(try await n1.metric("ptt_cluster_node") == 1)
        #expect(try await n1.metric("ptt_cluster_database_connected") == 1)
        let carol = try await cluster.connect("carol", on: n3)
        _ = try await Self.eventually("n3 knows deck") { try await n3.exists("/api/channels/deck") }
        _ = try await carol.join("deck")
        // For three rounds of ownership, n3 (with a member there now) never takes deck from its live owner.
        let watch = ContinuousClock.now
        while ContinuousClock.now - watch < ClusterNode.ownershipWindow {
            #expect(try await Self.owner(of: "deck", on: n1) == "n2")
            try await Task.sleep(for: .milliseconds(50))
        }

        // The owner dies.
        n2.daemon.signal(SIGKILL)
        let killed = ContinuousClock.now
        _ = try await Self.eventually("deck owned by n3", timeout: .seconds(10)) {
            try await Self.owner(of: "deck", on: n1) == "n3"
        }
        let failover = ContinuousClock.now - killed
        print("cluster failover: deck has a new owner (n3) \(failover) after its owner was killed")
        #expect(failover < .seconds(5))
        let channels: [ChannelSummary] = try await n1.admin.get("/api/channels")
        #expect(channels.first { $0.name == "deck" }?.members == 2, "no membership was lost")
        try await carol.barrier()

        // n3 is cut off from the database (its session ends): it gives up deck; one node owns it after.
        let bob = try await cluster.connect("bob", on: n1)
        _ = try await bob.join("deck")
        let admin = try await cluster.server.connect(database: cluster.database)
        defer { Task { try? await admin.close() } }
        try await admin.query(
            "SELECT pg_terminate_backend(backend_pid) FROM node WHERE name = 'n3'", logger: Logger(label: "test"))
        try await n3.daemon.waitForStandardError(containing: "gave up every channel this node owned")
        _ = try await Self.eventually("n3 counts the lost connection and is back") {
            let lost = try await n3.metric("ptt_cluster_database_connections_lost_total")
            let connected = try await n3.metric("ptt_cluster_database_connected")
            return lost == 1 && connected == 1
        }
        _ = try await Self.eventually("deck owned again", timeout: .seconds(10)) {
            let owner = try await Self.owner(of: "deck", on: n1)
            return owner == "n1" || owner == "n3"
        }
        try await Self.stop([n1, n3])
    }
}
