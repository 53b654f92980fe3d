import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a channel and print every event as one JSON line until interrupted or --seconds pass.",
        discussion: """
            The membership ends when the monitor stops, unless --stay is given.

            Each `push` frame is printed and acknowledged with `push-ack` right away (--no-ack leaves it \
            unacknowledged: stored announcements are then delivered again on the next connection). With \
            --role push-provider the monitor stands in for a suspended device's Local Push extension and prints \
            one `push` line per wake.

            The monitor asks to be told of every member joining and leaving, at any channel size             (--no-member-events leaves that to the server: in a channel past its `memberEventsUpTo`, none).
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "Display name other members see (default: the user name).") var name: String?
    @Option(help: "Stop after this many seconds.") var seconds: Double?
    @Flag(help: "Join receive-only.") var receiveOnly = false
    @Flag(help: "Keep the membership when the monitor stops.") var stay = false
    @Flag(help: "Also print heartbeats.") var heartbeats = false
    @Flag(help: "Print the server's welcome first (it lists the memberships this device already holds).") var welcome =
        false
    @Flag(
        name: .customLong("no-ack"),
        help: "Do not acknowledge pushes (stored announcements are then delivered again on the next connection).")
    var noAck = false
    @Flag(
        name: .customLong("no-member-events"),
        help: "Do not ask for member-joined/member-left whatever the channel's size.")
    var noMemberEvents = false

    func run() async throws {
        let client = try await connection.connect()
        if welcome { printLine(.welcome(client.welcome)) }
        let joined: ControlMessage
        do {
            joined = try await client.request(
                .join(
                    Join(
                        channel: channel, displayName: name, receiveOnly: receiveOnly,
                        srtpSuites: connection.srtpSuites.isEmpty ? nil : connection.srtpSuites,
                        memberEvents: noMemberEvents ? nil : true)))
        } catch {
            stderr("ptt: join failed: \(error)")
            await client.close()
            throw ExitCode(1)
        }
        printLine(joined)
        let showHeartbeats = heartbeats
        let acknowledge = !noAck
        try await runUntilInterrupted(seconds: seconds) {
            for await message in client.messages {
                if case .heartbeat = message, !showHeartbeats { continue }
                if case .heartbeatAck = message, !showHeartbeats { continue }
                printLine(message)
                if case .push(let frame) = message, acknowledge { client.send(.pushAck(PushAck(id: frame.id))) }
            }
            if !Task.isCancelled { stderr("ptt: the server closed the connection") }
        }
        if !stay { _ = try? await client.request(.leave(Leave(channel: channel)), timeout: .seconds(3)) }
        await client.close()
    }
}
