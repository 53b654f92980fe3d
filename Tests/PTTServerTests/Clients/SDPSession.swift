import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// `ptt sdp` for a member of `deck`: the bridge between the relay and an RTP tool (ffmpeg, GStreamer) that the
/// interop suites put in front of the tool, started and joined.
struct SDPSession {
    /// The bridge's process, which runs 40 s (scaled) at most: the test SIGKILLs it in a `defer`.
    let process: Subprocess
    /// Where the bridge sends the channel's stream.
    let listenPort: Int
    /// Where the bridge wrote its SDP, if asked to.
    let sdpFile: String?

    /// Starts `ptt sdp` for `member`: it sends the channel's stream to `listenPort`, takes a talker's SRTP on
    /// `sendPort` (if given) and writes its SDP to `sdpFile` (if given). Returns once the bridge prints the ffmpeg
    /// command to talk with, that is once it has joined.
    static func start(
        for member: DeckMember, listenPort: Int, sendPort: Int? = nil, sdpFile: String? = nil
    ) async throws -> SDPSession {
        var arguments = ["sdp", "--channel", "deck", "--listen-port", "\(listenPort)"]
        if let sendPort { arguments += ["--send-port", "\(sendPort)"] }
        if let sdpFile { arguments += ["--sdp-file", sdpFile] }
        // Its life is scaled like the tests' waits: at its end it leaves the channel (see `TestTimeouts.lifetime`).
        let process = try Subprocess("ptt", arguments + ["--seconds", TestTimeouts.lifetime(40)] + member.signIn)
        do {
            try await process.waitForStandardError(containing: "to talk: ffmpeg")
        } catch {
            process.signal(SIGKILL)
            throw error
        }
        return SDPSession(process: process, listenPort: listenPort, sdpFile: sdpFile)
    }

    /// Starts `ptt sdp` for `member` as a tool that listens uses it: the channel's stream goes to a free RTP port
    /// pair, the SDP that describes it to `USER.sdp` in a directory of its own.
    static func listening(for member: DeckMember) async throws -> SDPSession {
        let sdpFile = TestServer.temporaryDirectory() + "/\(member.user).sdp"
        return try await start(for: member, listenPort: try await freeRTPPortPair(), sdpFile: sdpFile)
    }

    /// The word after `option` (`-ssrc`, `-srtp_out_params`) in the ffmpeg command the bridge prints to talk with.
    func talkOption(_ option: String) throws -> String {
        let talkLine = try #require(
            process.standardError.split(separator: "\n").first { $0.contains("to talk: ffmpeg") })
        let words = talkLine.split(separator: " ").map(String.init)
        return try #require(words.firstIndex(of: option).map { words[$0 + 1] })
    }
}
