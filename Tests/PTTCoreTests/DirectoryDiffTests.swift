import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: diffs of changes")
struct DirectoryDiffTests {
    /// Channels ops and dev; ann's phone (joined at 100 s) and ben's phone (300 s) in ops, ann's tablet
    /// (200 s) in dev; cat has no membership.
    struct World {
        var directory: ChannelDirectory
        var ops: ChannelID
        var dev: ChannelID
        var annPhone: Membership
        var annTablet: Membership
        var benPhone: Membership
        var random: DirectoryRandom

        init() throws {
            var random = DirectoryRandom(seed: 42)
            var directory = try F.directory(
                channels: ["ops", "dev"], users: [F.user("ann"), F.user("ben"), F.user("cat")])
            annPhone = try F.join(&directory, "ops", user: "ann", device: "phone", at: 100, random: &random)
            annTablet = try F.join(&directory, "dev", user: "ann", device: "tablet", at: 200, random: &random)
            benPhone = try F.join(&directory, "ops", user: "ben", device: "phone", at: 300, random: &random)
            ops = try F.channelID(directory, "ops")
            dev = try F.channelID(directory, "dev")
            self.directory = directory
            self.random = random
        }

        /// A planned, not yet applied, membership of cat's phone in `channel`.
        mutating func catJoin(_ channel: ChannelID) throws -> Membership {
            try directory.planJoin(
                channel: channel, user: "cat", device: "phone", displayName: nil, receiveOnly: false,
                pushToken: nil, now: F.date(400), random: &random
            ).membership
        }
    }

    @Test func noChangesNoDiff() throws {
        let world = try World()
        #expect(world.directory.diff(of: []) == DirectoryDiff())
    }

    @Test func channelsAndUsersPutChangeNoMembership() throws {
        let world = try World()
        let channel = try world.directory.planCreateChannel(name: "new", now: F.date(500))
        var renamed = try #require(world.directory.channels[world.ops])
        renamed.name = "operations"
        var promoted = try #require(world.directory.users["ann"])
        promoted.priority = 9
        let changes: [DirectoryChange] = [
            .putChannel(channel), .putChannel(renamed), .putUser(F.user("dan")), .putUser(promoted),
        ]
        #expect(world.directory.diff(of: changes) == DirectoryDiff())
    }

    @Test func newMembershipIsAJoin() throws {
        var world = try World()
        let cat = try world.catJoin(world.ops)
        #expect(world.directory.diff(of: [.putMembership(cat)]) == DirectoryDiff(steps: [.join(cat)]))
    }

    @Test func updatedMembershipIsAJoinToo() throws {
        let world = try World()
        let updated = try world.directory.planPushToken(member: world.annPhone.id, token: [1, 2, 3])
        #expect(world.directory.diff(of: [.putMembership(updated)]) == DirectoryDiff(steps: [.join(updated)]))
    }

    @Test func removedMembershipIsALeave() throws {
        let world = try World()
        #expect(
            world.directory.diff(of: [.removeMembership(world.annPhone.id)])
                == DirectoryDiff(steps: [.leave(world.annPhone.id)], removedMembers: [world.annPhone.id]))
    }

    @Test func removedUnknownMembershipIsStillALeave() throws {
        let world = try World()
        let unknown = MemberID("000000000000")
        #expect(
            world.directory.diff(of: [.removeMembership(unknown)])
                == DirectoryDiff(steps: [.leave(unknown)], removedMembers: [unknown]))
    }

    @Test func removedUserLeavesEveryMembershipOldestFirst() throws {
        let world = try World()
        #expect(
            world.directory.diff(of: [.removeUser("ann")])
                == DirectoryDiff(
                    steps: [.leave(world.annPhone.id), .leave(world.annTablet.id)],
                    removedMembers: [world.annPhone.id, world.annTablet.id]))
    }

    @Test func removedUserWithoutMembershipsChangesNone() throws {
        let world = try World()
        #expect(world.directory.diff(of: [.removeUser("cat")]) == DirectoryDiff())
        #expect(world.directory.diff(of: [.removeUser("nobody")]) == DirectoryDiff())
    }

    @Test func removedChannelIsOneStepAndRemovesItsMembers() throws {
        let world = try World()
        #expect(
            world.directory.diff(of: [.removeChannel(world.ops)])
                == DirectoryDiff(
                    steps: [.removeChannel(world.ops)], removedMembers: [world.annPhone.id, world.benPhone.id]))
    }

    @Test func removedEmptyOrUnknownChannelIsStillAStep() throws {
        var world = try World()
        world.directory.apply(.removeMembership(world.annTablet.id))
        let unknown = ChannelID()
        #expect(
            world.directory.diff(of: [.removeChannel(world.dev), .removeChannel(unknown)])
                == DirectoryDiff(steps: [.removeChannel(world.dev), .removeChannel(unknown)]))
    }

    @Test func stepsFollowTheOrderOfTheChanges() throws {
        var world = try World()
        let cat = try world.catJoin(world.dev)
        let changes: [DirectoryChange] = [
            .putMembership(cat),
            .removeMembership(world.benPhone.id),
            .putUser(F.user("dan")),
            .removeChannel(world.dev),
            .removeUser("ann"),
        ]
        #expect(
            world.directory.diff(of: changes)
                == DirectoryDiff(
                    steps: [
                        .join(cat), .leave(world.benPhone.id), .removeChannel(world.dev),
                        .leave(world.annPhone.id), .leave(world.annTablet.id),
                    ],
                    removedMembers: [world.benPhone.id, world.annTablet.id, world.annPhone.id]))
    }

    @Test func membershipsAreLookedUpBeforeTheChanges() throws {
        var world = try World()
        // cat joins ops in the same batch that deletes ops and removes cat: the directory does not know the
        // membership yet, so the relay's channel removal covers it and no leave or removal is reported.
        let cat = try world.catJoin(world.ops)
        #expect(
            world.directory.diff(of: [.putMembership(cat), .removeChannel(world.ops), .removeUser("cat")])
                == DirectoryDiff(
                    steps: [.join(cat), .removeChannel(world.ops)],
                    removedMembers: [world.annPhone.id, world.benPhone.id]))
        // A membership removed earlier in the batch is still in the directory when its user goes.
        #expect(
            world.directory.diff(of: [.removeMembership(world.annPhone.id), .removeUser("ann")])
                == DirectoryDiff(
                    steps: [.leave(world.annPhone.id), .leave(world.annPhone.id), .leave(world.annTablet.id)],
                    removedMembers: [world.annPhone.id, world.annTablet.id]))
    }
}
