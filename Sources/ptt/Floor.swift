import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

struct Floor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Join a channel, ask for the floor, hold it for --hold seconds, release it; prints every event as JSON lines.",
        discussion: "A queued request waits for its turn; a denied one exits with status 2.")

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "Seconds to hold the floor once granted.") var hold: Double = 1
    @Option(help: "Give up waiting in the queue after this many seconds.") var wait: Double = 60
    @Flag(help: "Keep the membership afterwards.") var stay = false

    func run() async throws {
        let client = try await connection.connect()
        defer { Task { await client.close() } }
        do {
            printLine(try await client.request(.join(Join(channel: channel))))
            let answer = try await client.request(.floorRequest(FloorCommand(channel: channel)))
            printLine(answer)
            if case .floorDenied = answer { throw ExitCode(2) }
            var granted = false
            if case .floorGranted = answer { granted = true }
            if !granted {
                let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
                for await message in client.messages {
                    printLine(message)
                    if case .floorGranted = message {
                        granted = true
                        break
                    }
                    if ContinuousClock.now > deadline { break }
                }
            }
            guard granted else {
                stderr("ptt: gave up waiting for the floor")
                throw ExitCode(3)
            }
            try await Task.sleep(for: .milliseconds(Int(hold * 1000)))
            client.send(.floorRelease(FloorCommand(channel: channel)))
            if !stay { printLine(try await client.request(.leave(Leave(channel: channel)), timeout: .seconds(3))) }
        } catch let error as ControlClientError {
            stderr("ptt: \(error)")
            throw ExitCode(1)
        }
    }
}

struct LeaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave", abstract: "End this device's membership of a channel.")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String

    func run() async throws {
        let client = try await connection.connect()
        do {
            printLine(try await client.request(.leave(PTTProtocol.Leave(channel: channel))))
        } catch let error as ControlClientError {
            stderr("ptt: \(error)")
            await client.close()
            throw ExitCode(1)
        }
        await client.close()
    }
}
