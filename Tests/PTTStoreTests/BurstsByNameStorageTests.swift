import Foundation
import PTTCore
import PTTStore
import PostgresTestSupport
import Testing

/// `Storage.bursts(named:except:since:limit:)`, on both storages: a deleted channel's recordings found by its old
/// name or id, apart from the live channel of that name.
@Suite("Recorded bursts by channel name", .sharedPostgres, .serialized)
struct BurstsByNameStorageTests {
    @Test(
        "bursts by old name or id, newest first, without the live channel's, bounded by since and limit",
        arguments: StorageBackend.allCases)
    func burstsByName(_ backend: StorageBackend) async throws {
        try await backend.withEmptyStorage { place in
            let created = StorageSuiteTests.created
            let (deleted, live, other) = (ChannelID(), ChannelID(), ChannelID())
            try place.withStorage { store in
                var ids: [Int64] = []
                for (index, (channel, name)) in [
                    (deleted, "deck"), (other, "bridge"), (deleted, "deck"), (live, "deck"),
                ]
                .enumerated() {
                    let burst = RecordedBurst(
                        id: 0, channel: channel, channelName: name, speaker: "m1", speakerName: "Alice",
                        startedAt: created.addingTimeInterval(Double(index) * 10), file: "bursts/{id}.opus")
                    ids.append(try store.insertBurst(burst).id)
                }
                func named(
                    _ name: String, except: ChannelID? = live, since: Double? = nil, limit: Int = 100
                ) throws
                    -> [Int64]
                {
                    try store.bursts(
                        named: name, except: except, since: since.map { created.addingTimeInterval($0) }, limit: limit
                    ).map(\.id)
                }
                #expect(try named("deck") == [ids[2], ids[0]], "the deleted channel's, newest first")
                #expect(try named("deck", except: nil) == [ids[3], ids[2], ids[0]])
                #expect(try named(deleted.description) == [ids[2], ids[0]], "by the old id")
                #expect(try named("deck", since: 10) == [ids[2]])
                #expect(try named("deck", limit: 1) == [ids[2]])
                #expect(try named("galley").isEmpty)
            }
        }
    }
}
