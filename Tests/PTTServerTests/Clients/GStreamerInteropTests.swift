import AudioFiles
import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// GStreamer as a peer through `ptt sdp`, both ways, as the README says it works: `srtpdec` decrypts the channel's
/// stream with the SDES key of the SDP (in hex, in `udpsrc`'s caps), `srtpenc` protects what it sends with the
/// member's key and SSRC. Each test compares every Opus packet with the fixture's, so a packet that does not get
/// through (or through damaged) fails it. `make test` installs GStreamer and the plugins (Makefile TEST_TOOLS and
/// TEST_GST_ELEMENTS); without them the suite is skipped with the reason.
@Suite(
    "Interoperability with GStreamer", .serialized,
    .enabled(
        if: Tools.have("gst-launch-1.0") && GStreamerElements.present,
        "needs gst-launch-1.0 and the srtp, rtp, opus and ogg elements (make test installs them)"))
struct GStreamerInteropTests {
    let fixture = "burst-20ms-mono.opus"

    @Test("GStreamer listens through ptt sdp: srtpdec with the SDP's key gets every packet of a burst intact")
    func gstreamerListens() async throws {
        let (_, packets) = try Fixtures.opus(fixture)
        try await withAliceAndBob { server, alice, bob in
            let bridge = try await SDPSession.listening(for: bob)
            defer { bridge.process.signal(SIGKILL) }
            let sdp = try SDESDescription(String(contentsOfFile: try #require(bridge.sdpFile), encoding: .utf8))
            let listenPort = bridge.listenPort

            // udpsrc stops (EOS) after as many datagrams as the burst has packets: one lost, and it never ends.
            let caps = [
                "application/x-srtp", "media=(string)audio", "clock-rate=(int)48000", "encoding-name=(string)OPUS",
                "payload=(int)\(sdp.payloadType)", "ssrc=(uint)\(try require_(sdp.ssrc, "a=ssrc"))",
                "srtp-key=(buffer)\(sdp.keyHex)", "srtp-cipher=(string)\(sdp.cipher)", "srtp-auth=(string)\(sdp.auth)",
                "srtcp-cipher=(string)\(sdp.cipher)", "srtcp-auth=(string)\(sdp.auth)", "roc=(uint)0",
            ].joined(separator: ", ")
            let recorded = TestServer.temporaryDirectory() + "/gstreamer.ogg"
            let gstreamer = try Subprocess(
                try #require(Tools.path("gst-launch-1.0")),
                [
                    "-q", "udpsrc", "port=\(listenPort)", "num-buffers=\(packets.count)", "caps=\(caps)", "!",
                    "srtpdec", "!", "rtpopusdepay", "!", "opusparse", "!", "oggmux", "!", "filesink",
                    "location=\(recorded)",
                ])
            defer { gstreamer.signal(SIGKILL) }
            do {
                try await waitForUDPListener(
                    port: listenPort, timeout: .seconds(30), while: { gstreamer.process.isRunning })
            } catch {
                throw TestFailure("\(error); gst-launch-1.0 says: \(gstreamer.standardError)")
            }

            try await InteropTests().waitForAudio(server, members: 1)
            let talker = try alice.talk(Fixtures.path(fixture))
            #expect(try await talker.waitForExit(timeout: .seconds(30)) == 0, "ptt talk: \(talker.standardError)")
            #expect(talker.standardError.contains("sent \(packets.count) packets"))
            let status = try? await gstreamer.waitForExit(timeout: .seconds(15))
            #expect(
                status == 0,
                "gst-launch-1.0 did not end with every packet (status \(String(describing: status))): \(gstreamer.standardError)"
            )
            let (_, heard) = try OggOpusReader.readFile(path: recorded)
            #expect(
                heard.map(\.data) == packets.map(\.data), "GStreamer got \(heard.count) of \(packets.count) packets")
        }
    }

    @Test("GStreamer talks through ptt sdp: srtpenc with the member's key and SSRC; ptt listen records every packet")
    func gstreamerTalks() async throws {
        let (_, packets) = try Fixtures.opus(fixture)
        try await withAliceAndBob { server, alice, bob in
            let directory = TestServer.temporaryDirectory()
            let out = directory + "/heard.ogg"
            let listener = try bob.listen(out: out, packets: packets.count)
            defer { listener.signal(SIGKILL) }
            let sendPort = try await freeUDPPort()
            let bridge = try await SDPSession.start(
                for: alice, listenPort: try await freeUDPPort(), sendPort: sendPort, sdpFile: directory + "/alice.sdp")
            defer { bridge.process.signal(SIGKILL) }
            try await InteropTests().waitForAudio(server, members: 2)
            let sdp = try SDESDescription(String(contentsOfFile: directory + "/alice.sdp", encoding: .utf8))
            // The member's own SSRC is in the ffmpeg command the bridge prints (signed, as ffmpeg reads it).
            let signed = try #require(Int32(try bridge.talkOption("-ssrc")))

            // udpsink paces the file in real time (it syncs on the buffers' timestamps), as a talker would.
            let gstreamer = try Subprocess(
                try #require(Tools.path("gst-launch-1.0")),
                [
                    "-q", "filesrc", "location=\(Fixtures.path(fixture))", "!", "oggdemux", "!", "opusparse", "!",
                    "rtpopuspay", "pt=\(sdp.payloadType)", "ssrc=\(UInt32(bitPattern: signed))", "!", "srtpenc",
                    "key=\(sdp.keyHex)", "rtp-cipher=\(sdp.cipher)", "rtp-auth=\(sdp.auth)",
                    "rtcp-cipher=\(sdp.cipher)", "rtcp-auth=\(sdp.auth)", "!", "udpsink", "host=127.0.0.1",
                    "port=\(sendPort)",
                ])
            defer { gstreamer.signal(SIGKILL) }
            #expect(
                try await gstreamer.waitForExit(timeout: .seconds(30)) == 0,
                "gst-launch-1.0: \(gstreamer.standardError)")
            #expect(try await listener.waitForExit(timeout: .seconds(20)) == 0, "ptt listen: \(listener.standardError)")
            let (_, heard) = try OggOpusReader.readFile(path: out)
            #expect(heard.map(\.data) == packets.map(\.data), "heard \(heard.count) of \(packets.count) packets")
        }
    }
}

/// The GStreamer elements the tests run, found with `gst-inspect-1.0` (outside the suite: its trait asks).
enum GStreamerElements {
    static let names = ["srtpdec", "srtpenc", "rtpopusdepay", "rtpopuspay", "opusparse", "oggmux", "oggdemux"]

    /// Whether `gst-inspect-1.0` finds every one.
    static var present: Bool {
        guard let inspect = Tools.path("gst-inspect-1.0") else { return false }
        return names.allSatisfy { element in
            (try? ToolRun.runBlocking(inspect, ["--exists", element]))?.status == 0
        }
    }
}

/// What GStreamer needs from the SDP `ptt sdp` writes: the payload type, the stream's SSRC, and the SDES key
/// (`a=crypto:1 SUITE inline:BASE64`) as GStreamer's SRTP elements take it: hex, with their cipher and auth names.
struct SDESDescription {
    var payloadType: Int
    var ssrc: UInt32?
    var keyHex: String
    var cipher: String
    var auth: String

    init(_ sdp: String) throws {
        let lines = sdp.split(whereSeparator: \.isNewline).map(String.init)
        func value(_ prefix: String) -> String? {
            lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        payloadType = try require_(value("m=audio ")?.split(separator: " ").last.flatMap { Int($0) }, "m=audio")
        ssrc = value("a=ssrc:")?.split(separator: " ").first.flatMap { UInt32($0) }
        let crypto = try require_(value("a=crypto:1 "), "a=crypto (is the stream SRTP?)").split(separator: " ")
        let inline = try require_(crypto.last?.split(separator: ":").last, "inline key")
        let key = try require_(Data(base64Encoded: String(inline)), "a base64 key")
        keyHex = key.map { String(format: "%02x", $0) }.joined()
        switch crypto.first {
        case "AES_CM_128_HMAC_SHA1_80": (cipher, auth) = ("aes-128-icm", "hmac-sha1-80")
        case "AES_CM_128_HMAC_SHA1_32": (cipher, auth) = ("aes-128-icm", "hmac-sha1-32")
        case "AEAD_AES_128_GCM": (cipher, auth) = ("aes-128-gcm", "null")
        default: throw TestFailure("no GStreamer names for the suite \(crypto.first ?? "")")
        }
    }
}
