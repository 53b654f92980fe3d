import AudioFiles
import Foundation
import NIOCore
import NIOPosix
import PTTProtocol
import RTP
import ServerTestSupport
import TestSupport
import Testing

/// Real tools as peers: ffmpeg talks and listens through `ptt sdp`, `ptt listen` records, tshark checks
/// the relayed stream on the wire. `make test` installs the tools; without them these tests are skipped
/// with the reason.
@Suite(
    "Interoperability with ffmpeg and tshark", .serialized,
    .enabled(if: Tools.have("ffmpeg", "tshark"), "needs ffmpeg and tshark (make test installs them)"))
struct InteropTests {
    let fixture = "burst-20ms-mono.opus"

    /// Waits (bounded) until the channel has `count` members the relay can reach.
    func waitForAudio(_ server: TestServer, members count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(20).scaled
        var last: ChannelDetail?
        while ContinuousClock.now < deadline {
            if let detail: ChannelDetail = try? await server.admin.get("/api/channels/deck") {
                if detail.members.count == count, detail.members.allSatisfy({ $0.audioReachable }) { return }
                last = detail
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let seen = (last?.members ?? []).map { "\($0.user): \($0.audioReachable ? "heard" : "not heard")" }
        throw TestFailure("the relay never reached \(count) members; last seen: \(seen.joined(separator: ", "))")
    }

    @Test("ffmpeg sends a fixture as SRTP through ptt sdp; ptt listen records every packet intact")
    func ffmpegTalks() async throws {
        let (_, packets) = try Fixtures.opus(fixture)
        try await withAliceAndBob { server, alice, bob in
            let out = TestServer.temporaryDirectory() + "/heard.ogg"

            let listener = try bob.listen(out: out, packets: packets.count)
            defer { listener.signal(SIGKILL) }
            let sendPort = try await freeUDPPort()
            let bridge = try await SDPSession.start(
                for: alice, listenPort: try await freeUDPPort(), sendPort: sendPort)
            defer { bridge.process.signal(SIGKILL) }
            do {
                try await waitForAudio(server, members: 2)
            } catch {
                throw TestFailure(
                    "\(error); ptt listen (bob) running: \(listener.process.isRunning), says: \(listener.standardError)"
                )
            }
            let ssrc = try bridge.talkOption("-ssrc")
            let key = try bridge.talkOption("-srtp_out_params")

            let ffmpeg = try Subprocess(
                try #require(Tools.path("ffmpeg")),
                [
                    "-hide_banner", "-loglevel", "error", "-re", "-i", Fixtures.path(fixture), "-c:a", "copy", "-f",
                    "rtp",
                    "-payload_type", "111", "-ssrc", ssrc, "-srtp_out_suite", "AES_CM_128_HMAC_SHA1_80",
                    "-srtp_out_params", key,
                    "srtp://127.0.0.1:\(sendPort)",
                ])
            #expect(try await ffmpeg.waitForExit(timeout: .seconds(30)) == 0, "ffmpeg: \(ffmpeg.standardError)")
            #expect(try await listener.waitForExit(timeout: .seconds(20)) == 0, "ptt listen: \(listener.standardError)")
            let (_, heard) = try OggOpusReader.readFile(path: out)
            #expect(heard.map(\.data) == packets.map(\.data), "heard \(heard.count) of \(packets.count) packets")
            if let opusinfo = Tools.path("opusinfo") {
                let info = try Subprocess(opusinfo, [out])
                #expect(try await info.waitForExit() == 0)
            }
        }
    }

    @Test("ptt talk sends a fixture; ffmpeg records it through ptt sdp; tshark sees one clean RTP stream")
    func ffmpegListens() async throws {
        let (_, packets) = try Fixtures.opus(fixture)
        try await withAliceAndBob { _, alice, bob in
            let directory = TestServer.temporaryDirectory()
            let bridge = try await SDPSession.listening(for: bob)
            defer { bridge.process.signal(SIGKILL) }
            let listenPort = bridge.listenPort
            let capture = try Subprocess(
                try #require(Tools.path("tshark")),
                [
                    "-i", "lo", "-f", "udp dst port \(listenPort)", "-w", directory + "/relayed.pcap", "-F", "pcap",
                    "-c", "\(packets.count)", "-a", "duration:" + TestTimeouts.lifetime(40),
                ])
            defer { capture.signal(SIGKILL) }
            // "Capturing on" is printed before dumpcap has started; packets relayed before "Capture started" would be
            // missed, and tshark would wait for a packet count it can never reach (seen on a loaded machine).
            try await capture.waitForStandardError(containing: "Capture started")
            let ffmpeg = try Subprocess(
                try #require(Tools.path("ffmpeg")),
                [
                    "-hide_banner", "-loglevel", "error", "-protocol_whitelist", "file,udp,rtp", "-i",
                    try #require(bridge.sdpFile),
                    "-c", "copy", "-frames:a", "\(packets.count)", "-y", directory + "/recorded.ogg",
                ])
            defer { ffmpeg.signal(SIGKILL) }
            do {
                try await waitForUDPListener(
                    port: listenPort, timeout: .seconds(30), while: { ffmpeg.process.isRunning })
            } catch {
                throw TestFailure(
                    "\(error); ffmpeg running: \(ffmpeg.process.isRunning), says: \(ffmpeg.standardError)")
            }

            let talker = try alice.talk(Fixtures.path(fixture))
            #expect(try await talker.waitForExit(timeout: .seconds(30)) == 0, "ptt talk: \(talker.standardError)")
            #expect(talker.standardError.contains("sent \(packets.count) packets"))
            // Both peers stop by themselves once they have seen every packet (the test runner's children may not
            // receive SIGINT: it can be blocked in the process that spawns them).
            #expect(try await ffmpeg.waitForExit(timeout: .seconds(15)) == 0, "ffmpeg: \(ffmpeg.standardError)")
            // tshark stops by itself after the packet count. Should it not (it has been seen to hang on to the count
            // on a loaded machine), the file it wrote is analysed all the same: the checks below count the packets.
            if (try? await capture.waitForExit(timeout: .seconds(15))) == nil {
                capture.signal(SIGKILL)
                _ = try? await capture.waitForExit(timeout: .seconds(5))
            }

            let (_, recorded) = try OggOpusReader.readFile(path: directory + "/recorded.ogg")
            #expect(
                recorded.map(\.data) == packets.map(\.data),
                "ffmpeg recorded \(recorded.count) of \(packets.count) packets; prefix: \(recorded.map(\.data) == Array(packets.map(\.data).prefix(recorded.count))), suffix: \(recorded.map(\.data) == Array(packets.map(\.data).suffix(recorded.count)))"
            )

            let analysis = try await Subprocess.run(
                try #require(Tools.path("tshark")),
                [
                    "-r", directory + "/relayed.pcap", "-d", "udp.port==\(listenPort),rtp", "-q", "-z", "rtp,streams",
                ])
            let streams = analysis.split(separator: "\n").filter { $0.contains("RTPType-111") || $0.contains(" 111 ") }
            #expect(streams.count == 1, "expected one RTP stream:\n\(analysis)")
            let columns =
                streams.first.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) } ?? []
            // ... Payload Pkts Lost(n) (pct%) ...: the packet count follows the payload name.
            if let payload = columns.firstIndex(where: { $0.hasPrefix("RTPType") }) {
                #expect(columns[payload + 1] == "\(packets.count)", "\(analysis)")
                #expect(columns[payload + 2] == "0", "lost packets: \(analysis)")
            }
            #expect(!(streams.first?.hasSuffix("X") ?? true), "tshark flagged problems: \(analysis)")
        }
    }
}
