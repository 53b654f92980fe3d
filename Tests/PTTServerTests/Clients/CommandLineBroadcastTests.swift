import AudioFiles
import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// A broadcast as a dispatcher makes one with `ptt talk --broadcast`, heard by `ptt listen` in another channel.
@Suite("Broadcasts from the command line")
struct CommandLineBroadcastTests {
    @Test("ptt talk --channel bridge --broadcast deck: bob, listening in deck, records every packet alice says")
    func talkToAnotherChannel() async throws {
        let (_, spoken) = try Fixtures.opus("burst-20ms-mono.opus")
        try await withAliceAndBob { server, alice, bob in
            _ =
                try await server.admin.put("/api/users/alice/rights", body: UserRightsRequest(rights: [.broadcast]))
                as UserStatus
            let directory = TestServer.temporaryDirectory()
            let listener = try bob.listen(out: directory + "/bob.ogg", packets: spoken.count)
            defer { listener.signal(SIGKILL) }
            try await listener.waitForStandardError(containing: "listening on deck")

            let talker = try Subprocess(
                "ptt",
                [
                    "talk", "--channel", "bridge", "--broadcast", "deck", "--file",
                    Fixtures.path("burst-20ms-mono.opus"),
                ] + alice.signIn)
            defer { talker.signal(SIGKILL) }
            #expect(try await talker.waitForExit(timeout: .seconds(40)) == 0, "ptt talk: \(talker.standardError)")
            #expect(talker.standardError.contains("broadcasting to bridge, deck"), "\(talker.standardError)")
            #expect(try await listener.waitForExit(timeout: .seconds(20)) == 0, "ptt listen: \(listener.standardError)")
            let (_, heard) = try OggOpusReader.readFile(path: directory + "/bob.ogg")
            #expect(heard.map(\.data) == spoken.map(\.data), "bob heard \(heard.count) of \(spoken.count) packets")

            // Without the right, bob is refused, and says so.
            let refused = try Subprocess(
                "ptt",
                ["talk", "--channel", "deck", "--broadcast-all", "--file", Fixtures.path("burst-20ms-mono.opus")]
                    + bob.signIn)
            defer { refused.signal(SIGKILL) }
            #expect(try await refused.waitForExit(timeout: .seconds(30)) == 1)
            #expect(refused.standardError.contains("may not broadcast"), "\(refused.standardError)")
        }
    }
}
