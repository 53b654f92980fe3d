import ArgumentParser
import Foundation
import PTTClient
import PTTProtocol

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a channel and print every event as one JSON line until interrupted or --seconds pass.",
        discussion: "The membership ends when the monitor stops, unless --stay is given.")

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "Display name other members see (default: the user name).") var name: String?
    @Option(help: "Stop after this many seconds.") var seconds: Double?
    @Flag(help: "Join receive-only.") var receiveOnly = false
    @Flag(help: "Keep the membership when the monitor stops.") var stay = false
    @Flag(help: "Also print heartbeats.") var heartbeats = false

    func run() async throws {
        let client = try await connection.connect()
        let joined: ControlMessage
        do {
            joined = try await client.request(.join(Join(channel: channel, displayName: name, receiveOnly: receiveOnly)))
        } catch {
            stderr("ptt: join failed: \(error)")
            await client.close()
            throw ExitCode(1)
        }
        printLine(joined)
        let showHeartbeats = heartbeats
        try await runUntilInterrupted(seconds: seconds) {
            for await message in client.messages {
                if case .heartbeat = message, !showHeartbeats { continue }
                if case .heartbeatAck = message, !showHeartbeats { continue }
                printLine(message)
            }
            if !Task.isCancelled { stderr("ptt: the server closed the connection") }
        }
        if !stay { _ = try? await client.request(.leave(Leave(channel: channel)), timeout: .seconds(3)) }
        await client.close()
    }
}
