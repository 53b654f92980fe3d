import AudioFiles
import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// Private calls as people make them with `ptt call` and `ptt answer` (through PTTKit), against a server on
/// loopback, with a third member of the channel they call from listening with `ptt listen`.
@Suite("Private calls from the command line")
struct CommandLineCallTests {
    @Test(
        "ptt call rings bob's ptt answer: bob records every packet alice says, and carol, listening in the channel they share, hears none of it but hears deck's next burst"
    )
    func callAnswerAndAThirdMember() async throws {
        let (_, spoken) = try Fixtures.opus("burst-20ms-mono.opus")
        let (_, deckBurst) = try Fixtures.opus("burst-60ms-mono.opus")
        try await withAliceAndBob { server, alice, bob in
            let carol = DeckMember(server: server, user: "carol", secret: try await server.addUser("carol"))
            let directory = TestServer.temporaryDirectory()
            // Carol stops after as many packets as deck's burst has: a packet of the call would be among them.
            let listener = try carol.listen(out: directory + "/carol.ogg", packets: deckBurst.count)
            defer { listener.signal(SIGKILL) }
            try await listener.waitForStandardError(containing: "listening on deck")

            let answering = try Subprocess(
                "ptt",
                [
                    "answer", "--channel", "deck", "--out", directory + "/bob.ogg", "--until-quiet", "1.5",
                    "--seconds", TestTimeouts.lifetime(60),
                ] + bob.signIn)
            defer { answering.signal(SIGKILL) }
            try await answering.waitForStandardError(containing: "waiting for a call on deck")

            let calling = try Subprocess(
                "ptt",
                [
                    "call", "bob", "--channel", "deck", "--file", Fixtures.path("burst-20ms-mono.opus"), "--seconds",
                    TestTimeouts.lifetime(60),
                ] + alice.signIn)
            defer { calling.signal(SIGKILL) }
            #expect(try await calling.waitForExit(timeout: .seconds(40)) == 0, "ptt call: \(calling.standardError)")
            #expect(calling.standardError.contains("ptt: bob answered"), "\(calling.standardError)")
            #expect(calling.standardError.contains("said \(spoken.count) packets"), "\(calling.standardError)")
            #expect(
                try await answering.waitForExit(timeout: .seconds(20)) == 0, "ptt answer: \(answering.standardError)")
            #expect(answering.standardError.contains("alice (alice) calls"), "\(answering.standardError)")
            let (_, heard) = try OggOpusReader.readFile(path: directory + "/bob.ogg")
            #expect(heard.map(\.data) == spoken.map(\.data), "bob heard \(heard.count) of \(spoken.count) packets")

            // Deck's own next burst reaches carol, and it is all she heard.
            let talker = try alice.talk(Fixtures.path("burst-60ms-mono.opus"))
            #expect(try await talker.waitForExit(timeout: .seconds(30)) == 0, "ptt talk: \(talker.standardError)")
            #expect(try await listener.waitForExit(timeout: .seconds(20)) == 0, "ptt listen: \(listener.standardError)")
            let (_, carolHeard) = try OggOpusReader.readFile(path: directory + "/carol.ogg")
            #expect(carolHeard.map(\.data) == deckBurst.map(\.data), "carol heard \(carolHeard.count) packets")
        }
    }

    @Test(
        "ptt answer --decline: the caller's ptt call says declined and exits 2; a user who shares no channel is refused"
    )
    func declinedAndUnavailable() async throws {
        try await withAliceAndBob { server, alice, bob in
            let answering = try Subprocess(
                "ptt",
                ["answer", "--channel", "deck", "--decline", "--seconds", TestTimeouts.lifetime(30)] + bob.signIn)
            defer { answering.signal(SIGKILL) }
            try await answering.waitForStandardError(containing: "waiting for a call on deck")
            let calling = try Subprocess(
                "ptt", ["call", "bob", "--channel", "deck", "--seconds", TestTimeouts.lifetime(30)] + alice.signIn)
            defer { calling.signal(SIGKILL) }
            #expect(try await calling.waitForExit() == 2, "ptt call: \(calling.standardError)")
            #expect(calling.standardError.contains("not answered: declined"), "\(calling.standardError)")
            #expect(try await answering.waitForExit() == 0, "ptt answer: \(answering.standardError)")
            #expect(answering.standardError.contains("declined"))

            // Dave shares no channel with alice: by default (calls.anyone off) she may not call him.
            _ = try await server.addUser("dave")
            let stranger = try Subprocess(
                "ptt", ["call", "dave", "--channel", "deck", "--seconds", TestTimeouts.lifetime(30)] + alice.signIn)
            defer { stranger.signal(SIGKILL) }
            #expect(try await stranger.waitForExit() == 1, "ptt call dave: \(stranger.standardError)")
            #expect(stranger.standardError.contains("shares no channel"), "\(stranger.standardError)")
        }
    }
}
