import Foundation
import Testing

@testable import PTTCore

@Suite("Media keys")
struct MediaKeyRotationTests {
    @Test("rotation gives every membership a new key and keeps everything else")
    func rotation() throws {
        let now = Date(timeIntervalSince1970: 0)
        let channel = Channel(id: ChannelID(), name: "deck", createdAt: now)
        let user = User(name: "u", secretHash: [1], salt: [2], createdAt: now)
        var directory = ChannelDirectory(channels: [channel], users: [user], memberships: [])
        var random = DirectoryRandom(seed: 14)
        for device in ["a", "b", "c"] {
            let planned = try directory.planJoin(
                channel: channel.id, user: "u", device: device, displayName: nil, receiveOnly: false,
                pushToken: nil, now: now, random: &random)
            directory.apply(.putMembership(planned.membership))
        }
        let before = directory.memberships
        let changes = directory.planRotateMediaKeys(random: &random)
        #expect(changes.count == 3)
        directory.apply(changes)
        for (id, old) in before {
            let new = try #require(directory.memberships[id])
            #expect(new.mediaKey != old.mediaKey)
            #expect(new.mediaKey.count == 30)
            var same = new
            same.mediaKey = old.mediaKey
            #expect(same == old)
        }
    }
}
