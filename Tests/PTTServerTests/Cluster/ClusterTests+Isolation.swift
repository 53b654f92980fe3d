import Foundation
import PTTKit
import PTTProtocol
import PTTServer
import PostgresTestSupport
import TestSupport
import Testing

/// A node cut off from the cluster's database (its only way there, a TCP relay the test runs, is killed): it gives
/// its channels up at once, another node takes them, and after the grace it sends its members elsewhere.
extension ClusterTests {
    /// A TCP relay on 127.0.0.1 (a port of its own) to PostgreSQL's Unix socket: killing it cuts a node off.
    static let databaseRelay = """
        import asyncio, sys
        async def pipe(reader, writer):
            try:
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            finally:
                writer.close()
        async def handle(reader, writer):
            upstream_reader, upstream_writer = await asyncio.open_unix_connection(sys.argv[1])
            await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer), return_exceptions=True)
        async def main():
            server = await asyncio.start_server(handle, "127.0.0.1", 0)
            print(server.sockets[0].getsockname()[1], flush=True)
            await server.serve_forever()
        asyncio.run(main())
        """

    @Test(
        "a node cut off from the database gives its channels up to a node with members, stops sending audio, and sends its members to the other nodes"
    )
    func isolatedNode() async throws {
        let server = try #require(SharedPostgres.server)
        let database = try await server.createDatabase().database
        let relay = try Subprocess(
            "/usr/bin/env",
            ["python3", "-c", Self.databaseRelay, "\(server.directory)/.s.PGSQL.\(PostgresServer.socketPort)"])
        defer { relay.signal(SIGKILL) }
        let port = try await relay.waitForLine { Int($0) != nil }
        let n1 = try await Self.start("n1", database: server.url(database: database))
        defer { n1.daemon.signal(SIGKILL) }
        let n3 = try await Self.start("n3", database: "postgres://postgres@127.0.0.1:\(port)/\(database)")
        defer { n3.daemon.signal(SIGKILL) }
        let secrets = try await Self.users(["bob", "carol"], on: n1, known: [n1, n3])

        let carol = try await Self.member("carol", secret: secrets["carol"]!, on: n3, creates: true)
        defer { Task { await carol.talker.peer.close() } }
        _ = try await Self.eventually("deck owned by n3") { try await Self.owner(of: "deck", on: n1) == "n3" }
        let bob = try await Self.member("bob", secret: secrets["bob"]!, on: n1)
        defer { Task { await bob.talker.peer.close() } }
        _ = try await Self.linked(n3, [n1])

        // n3 loses its only way to the database, for good.
        relay.signal(SIGKILL)
        let cut = ContinuousClock.now
        try await n3.daemon.waitForStandardError(containing: "gave up every channel this node owned")
        _ = try await Self.eventually("n1 owns deck", timeout: .seconds(10)) {
            try await Self.owner(of: "deck", on: n1) == "n1"
        }
        print(
            "cluster: a node cut off from the database; its channel owned by another node \(ContinuousClock.now - cut) later"
        )
        let cutOff: ChannelDetail = try await n3.admin.get("/api/channels/deck")
        #expect(cutOff.nodeLinks == [], "a node that owns nothing sends no audio to any node")

        // After the grace, carol is told to go elsewhere, with n1's address; a new member is refused the same way.
        guard case .error(let told) = try await carol.talker.peer.next("error", timeout: .seconds(10)) else {
            throw TestFailure("expected error")
        }
        #expect(told.code == .unavailable)
        #expect(told.message.contains("n1 at 127.0.0.1:\(n1.info.controlPort)"), "\(told.message)")
        try await carol.talker.peer.waitClosed()
        do {
            let again = try await n3.connect("carol", secret: secrets["carol"]!)
            await again.close()
            Issue.record("n3 took a member while cut off")
        } catch ControlClientError.refused(let error) {
            #expect(error.code == .unavailable)
        }
        // Carol, on n1 now, talks with bob again.
        let moved = try await Self.member("carol", secret: secrets["carol"]!, on: n1)
        defer { Task { await moved.talker.peer.close() } }
        let granted = try await moved.talker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
        #expect(granted.type == "floor-granted")
        try await Self.talk(try tonePackets(20), from: moved, to: [bob])
        try await Self.stop([n1])
    }
}
