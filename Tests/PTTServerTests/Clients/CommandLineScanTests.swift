import AudioFiles
import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// A scan list as a person sets one with `ptt listen --scan`, against bursts said with `ptt talk`.
@Suite("Scan lists from the command line")
struct CommandLineScanTests {
    @Test("ptt listen --channel deck --scan bridge,deck hears a burst on bridge, says so, and records it")
    func listenScanning() async throws {
        let (_, spoken) = try Fixtures.opus("burst-20ms-mono.opus")
        try await withAliceAndBob { server, alice, bob in
            let directory = TestServer.temporaryDirectory()
            let listener = try Subprocess(
                "ptt",
                [
                    "listen", "--channel", "deck", "--scan", "bridge,deck", "--out", directory + "/bob.ogg",
                    "--packets", "\(spoken.count)", "--seconds", TestTimeouts.lifetime(40),
                ] + bob.signIn)
            defer { listener.signal(SIGKILL) }
            try await listener.waitForStandardError(containing: "scanning bridge, deck (resume live)")

            let talker = try Subprocess(
                "ptt", ["talk", "--channel", "bridge", "--file", Fixtures.path("burst-20ms-mono.opus")] + alice.signIn)
            defer { talker.signal(SIGKILL) }
            #expect(try await talker.waitForExit(timeout: .seconds(40)) == 0, "ptt talk: \(talker.standardError)")
            #expect(try await listener.waitForExit(timeout: .seconds(20)) == 0, "ptt listen: \(listener.standardError)")
            #expect(listener.standardError.contains("ptt: hearing bridge"), "\(listener.standardError)")
            let (_, heard) = try OggOpusReader.readFile(path: directory + "/bob.ogg")
            #expect(heard.map(\.data) == spoken.map(\.data), "bob heard \(heard.count) of \(spoken.count) packets")
        }
    }
}
