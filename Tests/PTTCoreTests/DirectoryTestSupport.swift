import Foundation
import Testing

@testable import PTTCore

/// SplitMix64 with an optional mask on every output. The mask narrows the values drawn, so that member ids
/// and SSRCs collide (and zero comes up) often enough to exercise the retry loops of `planJoin`.
struct DirectoryRandom: RandomNumberGenerator {
    var state: UInt64
    var mask: UInt64
    init(seed: UInt64, mask: UInt64 = .max) {
        state = seed
        self.mask = mask
    }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) & mask
    }
}

/// Records and directories for the directory tests.
enum DirectoryFixture {
    /// A fixed instant `seconds` after an arbitrary origin.
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + seconds) }

    static func user(_ name: String, priority: Int = 0, receiveOnly: Bool = false) -> User {
        User(
            name: name, secretHash: Array(repeating: 0xAB, count: 32), salt: [1, 2, 3, 4], priority: priority,
            receiveOnly: receiveOnly, createdAt: date(0))
    }

    /// A directory with the named channels and the users, created through plan + apply.
    static func directory(channels: [String] = [], users: [User] = []) throws -> ChannelDirectory {
        var directory = ChannelDirectory()
        for (index, name) in channels.enumerated() {
            directory.apply(.putChannel(try directory.planCreateChannel(name: name, now: date(Double(index)))))
        }
        for user in users { directory.apply(.putUser(try directory.planAddUser(user))) }
        return directory
    }

    static func channelID(_ directory: ChannelDirectory, _ name: String) throws -> ChannelID {
        try #require(directory.channel(named: name)).id
    }

    /// Plans a join and applies it; returns the membership.
    @discardableResult
    static func join(
        _ directory: inout ChannelDirectory, _ channel: String, user: String, device: String = "phone",
        displayName: String? = nil, receiveOnly: Bool = false, pushToken: [UInt8]? = nil, at seconds: Double = 100,
        random: inout DirectoryRandom
    ) throws -> Membership {
        let plan = try directory.planJoin(
            channel: try channelID(directory, channel), user: user, device: device, displayName: displayName,
            receiveOnly: receiveOnly, pushToken: pushToken, now: date(seconds), random: &random)
        directory.apply(.putMembership(plan.membership))
        return plan.membership
    }

    /// The reason `NameRules` gives for refusing `name`, nil if it is accepted.
    static func nameRejection(_ name: String, what: String = "channel") -> String? {
        do {
            try NameRules.validate(name, what: what)
            return nil
        } catch {
            guard case .invalidName(let why) = error else { return "unexpected error \(error)" }
            return why
        }
    }

    /// Is `text` 12 lowercase hex digits?
    static func isMemberIDText(_ text: String) -> Bool {
        text.utf8.count == 12 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
