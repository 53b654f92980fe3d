import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: name rules")
struct DirectoryNameTests {
    @Test(arguments: [
        "general", "Ops Team", "a", "Überkanal", "频道", "🚒 Fire crew", "Ελληνικά", "x-y_z.1",
        String(repeating: "x", count: 64),
        // 64 characters of 2 scalars each: the limit counts characters, not scalars or bytes.
        String(repeating: "e\u{301}", count: 64),
    ])
    func acceptsOrdinaryAndUnicodeNames(name: String) {
        #expect(F.nameRejection(name) == nil)
    }

    @Test func rejectsEmptyName() {
        #expect(F.nameRejection("") == "channel name is empty")
    }

    @Test func rejectsNameOfSixtyFiveCharacters() {
        #expect(F.nameRejection(String(repeating: "x", count: 65)) == "channel name is longer than 64 characters")
        #expect(F.nameRejection(String(repeating: "é", count: 65)) == "channel name is longer than 64 characters")
    }

    @Test(arguments: ["a\nb", "tab\there", "nul\u{0}", "\u{7F}del", "esc\u{1B}[0m", "next\u{85}line", "\r"])
    func rejectsControlCharacters(name: String) {
        #expect(F.nameRejection(name) == "channel name contains control or invisible characters")
    }

    @Test(arguments: [" leading", "trailing ", " both ", " ", "   ", "\u{A0}nbsp", "ideographic\u{3000}"])
    func rejectsLeadingOrTrailingSpacesAndBlankNames(name: String) {
        #expect(F.nameRejection(name) == "channel name has leading or trailing spaces")
    }

    @Test func acceptsInnerSpaces() {
        #expect(F.nameRejection("a  b c") == nil)
    }

    @Test func reasonNamesWhatWasValidated() {
        #expect(F.nameRejection("", what: "user") == "user name is empty")
        #expect(F.nameRejection(" x", what: "display") == "display name has leading or trailing spaces")
    }

    @Test func planCreateChannelAppliesNameRules() throws {
        let directory = ChannelDirectory()
        #expect(throws: DirectoryError.invalidName("channel name is empty")) {
            try directory.planCreateChannel(name: "", now: F.date(0))
        }
        #expect(throws: DirectoryError.invalidName("channel name has leading or trailing spaces")) {
            try directory.planCreateChannel(name: "ops ", now: F.date(0))
        }
    }

    @Test func planAddUserAppliesNameRules() {
        let directory = ChannelDirectory()
        #expect(throws: DirectoryError.invalidName("user name contains control or invisible characters")) {
            try directory.planAddUser(F.user("bad\u{7}"))
        }
        #expect(throws: DirectoryError.invalidName("user name is longer than 64 characters")) {
            try directory.planAddUser(F.user(String(repeating: "u", count: 65)))
        }
    }

    @Test func planJoinAppliesNameRulesToTheDisplayName() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 1)
        let channel = try F.channelID(directory, "general")
        #expect(throws: DirectoryError.invalidName("display name has leading or trailing spaces")) {
            try directory.planJoin(
                channel: channel, user: "ann", device: "phone", displayName: " Ann",
                receiveOnly: false, pushToken: nil, now: F.date(1), random: &random)
        }
        #expect(throws: DirectoryError.invalidName("display name is empty")) {
            try directory.planJoin(
                channel: channel, user: "ann", device: "phone", displayName: "",
                receiveOnly: false, pushToken: nil, now: F.date(1), random: &random)
        }
    }
}
