import Foundation
import Testing

@testable import PTTCore

@Suite("Edge cases found in review")
struct EdgeCaseTests {
    @Test("instant arithmetic saturates instead of trapping or wrapping")
    func instantSaturation() {
        #expect(PTTInstant(nanoseconds: 5) + .seconds(Int64.min) == .zero)
        #expect(PTTInstant(nanoseconds: .max - 10) + .seconds(1) == PTTInstant(nanoseconds: .max))
        #expect(PTTInstant(nanoseconds: .max).since(.zero) == .nanoseconds(Int64.max))
        #expect((Duration.seconds(9_223_372_036) + .milliseconds(999)).nanoseconds == .max)
        #expect((Duration.seconds(-9_223_372_036) - .milliseconds(999)).nanoseconds == .min)
        #expect(Duration.microseconds(-1500).milliseconds == -1)
    }

    @Test("a membership put again under another channel leaves the old channel's index")
    func membershipMovesBetweenChannels() {
        let now = Date(timeIntervalSince1970: 0)
        let a = Channel(id: ChannelID(), name: "a", createdAt: now)
        let b = Channel(id: ChannelID(), name: "b", createdAt: now)
        let user = User(name: "u", secretHash: [1], salt: [2], createdAt: now)
        var directory = ChannelDirectory(channels: [a, b], users: [user], memberships: [])
        var member = Membership(
            id: MemberID("m"), channel: a.id, user: "u", device: "d", displayName: "u", priority: 0,
            receiveOnly: false, pushToken: nil, ssrc: 1, mediaKey: [], joinedAt: now)
        directory.apply(.putMembership(member))
        member.channel = b.id
        directory.apply(.putMembership(member))
        #expect(directory.memberCount(of: a.id) == 0)
        #expect(directory.members(of: b.id).map(\.id) == [member.id])
    }

    @Test(
        "names with invisible characters are refused",
        arguments: ["a\u{2028}", "\u{FEFF}deck", "de\u{200B}ck", "deck\n"])
    func invisibleCharacters(name: String) {
        #expect(throws: DirectoryError.self) { try NameRules.validate(name, what: "channel") }
    }

    @Test("a channel name that looks like a channel id is refused")
    func uuidLookingName() {
        let directory = ChannelDirectory()
        #expect(throws: DirectoryError.self) {
            _ = try directory.planCreateChannel(name: UUID().uuidString, now: Date())
        }
    }
}
