import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

struct SDP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdp",
        abstract: "Join a channel and bridge it to local UDP ports for ffmpeg or GStreamer; print the SDP.",
        discussion: """
            The channel's stream arrives, still SRTP-protected, on 127.0.0.1:LISTEN-PORT: `ffmpeg -protocol_whitelist \
            file,udp,rtp -i deck.sdp ...` plays or records it. To talk, send RTP with the member's SSRC and key to the \
            send port (the command is printed on standard error). The membership stays alive until interrupted or \
            --seconds pass.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "Local port the channel's stream is delivered to (the tool listens here).") var listenPort: Int = 5004
    @Option(help: "Local port the bridge accepts the tool's RTP on (0: any free port).") var sendPort: Int = 0
    @Option(help: "Also write the SDP to this file.") var sdpFile: String?
    @Option(help: "Stop after this many seconds.") var seconds: Double?
    @Flag(help: "Keep the membership afterwards.") var stay = false

    func run() async throws {
        let (client, endpoint) = try await connection.connectWithEndpoint()
        let joined: Joined
        do {
            let reply = try await client.request(.join(Join(channel: channel)))
            guard case .joined(let j) = reply else { throw ControlClientError.unexpectedReply(reply.type) }
            joined = j
        } catch {
            stderr("ptt: join failed: \(error)")
            await client.close()
            throw ExitCode(1)
        }
        let bridge = try await MediaBridge.open(
            relayHost: endpoint.host, parameters: joined.media, listenPort: listenPort, sendPort: sendPort)
        let sdp = bridge.sdp(channelName: joined.channel.name)
        if let sdpFile { try sdp.write(toFile: sdpFile, atomically: true, encoding: .utf8) }
        FileHandle.standardOutput.write(Data(sdp.utf8))
        stderr(
            "ptt: bridging \(joined.channel.name): listen on 127.0.0.1:\(bridge.listenPort), send to 127.0.0.1:\(bridge.sendPort)"
        )
        stderr("ptt: to talk: \(bridge.ffmpegTalkCommand(input: "IN.opus"))")
        try await runUntilInterrupted(seconds: seconds) {
            for await _ in client.messages {}
        }
        stderr("ptt: bridged \(bridge.packetsFromRelay) packets from the relay, \(bridge.packetsFromTool) to it")
        if !stay { _ = try? await client.request(.leave(Leave(channel: channel)), timeout: .seconds(3)) }
        await bridge.close()
        await client.close()
    }
}
