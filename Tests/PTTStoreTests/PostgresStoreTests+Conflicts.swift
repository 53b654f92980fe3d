import Foundation
import PTTCore
import PTTStore
import PostgresNIO
import TestSupport
import Testing

/// Two nodes writing the directory at once: a write planned against a directory another node changed first is a
/// ``StorageConflict`` that changes nothing; PostgreSQL's errors keep their words (postgres-nio hides them).
extension PostgresStoreTests {
    @Test(
        "a channel name another node stored first, or a membership in a channel another node deleted, is a conflict that writes nothing, in PostgreSQL's words"
    )
    func conflictingWrites() async throws {
        let location = try await Self.server().createDatabase()
        let first = try PostgresStore(location: location, logger: Self.logger)
        defer { first.close() }
        let second = try PostgresStore(location: location, logger: Self.logger)
        defer { second.close() }
        let deck = StorageSuiteTests.channel("deck")
        try first.write([.putChannel(deck), .putUser(StorageSuiteTests.user("alice"))])

        // The second node had not heard of deck: it creates its own, and its member with it.
        let twin = StorageSuiteTests.channel("deck")
        do {
            try second.write([
                .putChannel(twin), .putMembership(StorageSuiteTests.membership("alice", in: twin.id)),
            ])
            Issue.record("two channels named deck were stored")
        } catch {
            #expect(error is StorageConflict, "\(String(reflecting: error))")
            let words = "\(error)"
            #expect(words.contains("23505") && words.contains("channel_name_key"), "\(words)")
            #expect(words.contains("Key (name)=(deck) already exists"), "\(words)")
            #expect(second.describe(error) == words)
        }
        let stored = try second.load()
        #expect(stored.channels.keys.map(\.description) == [deck.id.description] && stored.memberships.isEmpty)

        // Planned again against the stored directory, the join adopts deck.
        let member = StorageSuiteTests.membership("alice", in: deck.id)
        try second.write([.putMembership(member)])

        // Another node deletes deck; a membership planned before that is refused, and not left on a dead row.
        try first.write([.removeChannel(deck.id)])
        do {
            try second.write([.putMembership(StorageSuiteTests.membership("alice", in: deck.id, device: "tablet"))])
            Issue.record("a membership was stored in a deleted channel")
        } catch {
            #expect(error is StorageConflict, "\(String(reflecting: error))")
            #expect("\(error)".contains("23503"), "\(error)")
        }
        #expect(try first.load().memberships.isEmpty)
    }

    @Test("PostgreSQL's errors are described with their SQLSTATE and message, never postgres-nio's generic words")
    func errorWords() async throws {
        let location = try await Self.server().createDatabase()
        let connection = try await Self.server().connect(database: location.database)
        defer { Task { try? await connection.close() } }
        do {
            try await connection.query("SELECT 1 / 0", logger: Self.logger)
            Issue.record("a division by zero succeeded")
        } catch {
            #expect("\(error)".contains("Generic description"), "postgres-nio hides its words: \(error)")
            let failure = PostgresFailure.wrapping(error)
            #expect("\(failure)" == "database error 22012: division by zero", "\(failure)")
        }
    }
}
