import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

/// `ptt emergency`: declare an emergency on a channel (its floor is taken at once), or clear one.
struct EmergencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emergency",
        abstract:
            "Declare an emergency on a channel and take its floor at once, or clear one; prints every answer as JSON lines.",
        discussion: """
            Needs the user's emergency right (pttctl user rights NAME emergency). The emergency holds until this user \
            clears it (--clear) or an operator does (pttctl emergency clear CHANNEL). The floor taken with it is \
            released after --hold seconds; the membership stays. A refusal exits with status 1.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "emergency, or imminent-peril (above every priority, below an emergency).") var level = "emergency"
    @Option(help: "Seconds to hold the floor once granted.") var hold: Double = 0
    @Flag(help: "End the emergency this user declared instead.") var clear = false

    func validate() throws {
        guard EmergencyGrade(rawValue: level).isKnown else {
            throw ValidationError("--level: emergency or imminent-peril")
        }
        guard (0...3600).contains(hold) else { throw ValidationError("--hold: 0 to 3600 seconds") }
    }

    func run() async throws {
        let client = try await connection.connect()
        defer { Task { await client.close() } }
        do {
            printLine(try await client.request(.join(Join(channel: channel))))
            if clear { return printLine(try await client.request(.emergencyClear(EmergencyClear(channel: channel)))) }
            let request = EmergencyRequest(channel: channel, level: EmergencyGrade(rawValue: level))
            printLine(try await client.request(.emergency(request)))
            // The declaration's floor request follows: granted (or denied on a channel of one), within seconds.
            let deadline = ContinuousClock.now + .seconds(5)
            for await message in client.messages {
                printLine(message)
                if case .floorGranted = message { break }
                if case .floorDenied = message { return }
                if ContinuousClock.now > deadline { return stderr("ptt: no floor answer within 5 s") }
            }
            try await Task.sleep(for: .milliseconds(Int(hold * 1000)))
            printLine(try await client.request(.floorRelease(FloorCommand(channel: channel)), timeout: .seconds(3)))
        } catch let error as ControlClientError {
            stderr("ptt: \(error)")
            throw ExitCode(1)
        }
    }
}
