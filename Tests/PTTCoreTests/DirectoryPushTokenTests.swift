import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: push tokens")
struct DirectoryPushTokenTests {
    @Test(arguments: [1, 2, 8, 32, 100, 1023, 1024])
    func tokensOfOneTo1024BytesAreAccepted(length: Int) throws {
        let token = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try ChannelDirectory.validatePushToken(token)

        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: UInt64(length))
        let m = try F.join(&directory, "general", user: "ann", pushToken: token, random: &random)
        #expect(m.pushToken == token)
        #expect(try directory.planPushToken(member: m.id, token: token).pushToken == token)
    }

    @Test func emptyTokenIsRefused() throws {
        #expect(throws: DirectoryError.invalidPushToken("empty")) { try ChannelDirectory.validatePushToken([]) }
    }

    @Test func tokenOf1025BytesIsRefused() throws {
        #expect(throws: DirectoryError.invalidPushToken("longer than 1024 bytes")) {
            try ChannelDirectory.validatePushToken(Array(repeating: 1, count: 1025))
        }
    }

    @Test func joinWithAnInvalidTokenIsRefused() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 31)
        let channel = try F.channelID(directory, "general")
        #expect(throws: DirectoryError.invalidPushToken("longer than 1024 bytes")) {
            try directory.planJoin(
                channel: channel, user: "ann", device: "phone", displayName: nil, receiveOnly: false,
                pushToken: Array(repeating: 0, count: 1025), now: F.date(0), random: &random)
        }
        #expect(throws: DirectoryError.invalidPushToken("empty")) {
            try directory.planJoin(
                channel: channel, user: "ann", device: "phone", displayName: nil, receiveOnly: false,
                pushToken: [], now: F.date(0), random: &random)
        }
    }

    @Test func planPushTokenReplacesOnlyTheTokenAndChangesNothingUntilApplied() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 32)
        let m = try F.join(&directory, "general", user: "ann", pushToken: [1], random: &random)
        let planned = try directory.planPushToken(member: m.id, token: [9, 9, 9, 9])
        var expected = m
        expected.pushToken = [9, 9, 9, 9]
        #expect(planned == expected)
        #expect(directory.memberships[m.id]?.pushToken == [1])
        directory.apply(.putMembership(planned))
        #expect(directory.memberships[m.id]?.pushToken == [9, 9, 9, 9])
        #expect(directory.memberCount(of: m.channel) == 1)
    }

    @Test func planPushTokenForUnknownMemberIsRefused() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        #expect(throws: DirectoryError.noSuchMember("0123456789ab")) {
            try directory.planPushToken(member: MemberID("0123456789ab"), token: [1])
        }
    }

    @Test func planPushTokenValidatesTheToken() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 33)
        let m = try F.join(&directory, "general", user: "ann", random: &random)
        #expect(throws: DirectoryError.invalidPushToken("empty")) {
            try directory.planPushToken(member: m.id, token: [])
        }
        #expect(throws: DirectoryError.invalidPushToken("longer than 1024 bytes")) {
            try directory.planPushToken(member: m.id, token: Array(repeating: 2, count: 1025))
        }
    }
}
