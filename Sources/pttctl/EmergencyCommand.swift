import ArgumentParser
import Foundation
import PTTAdmin
import PTTProtocol

/// `pttctl emergency`: see and end channels' emergencies.
struct EmergencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emergency", abstract: "Show or clear a channel's emergency.",
        subcommands: [Show.self, Clear.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a channel's emergency: level, declarer, since.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "Channel name or id.") var channel: String

        func run() async throws {
            let client = try admin.client()
            let detail: ChannelDetail = try await adminCall {
                try await client.get("/api/channels/\(AdminClient.segment(channel))")
            }
            guard let emergency = detail.emergency else { return print("\(detail.name): no emergency") }
            let who = emergency.name.map { "\($0) (\(emergency.user))" } ?? emergency.user
            print(
                "\(detail.name): \(emergency.level.rawValue.uppercased()) declared by \(who) since \(emergency.since)")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a channel's emergency, whoever declared it; every member is told.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "Channel name or id.") var channel: String

        func run() async throws {
            let client = try admin.client()
            try await adminCall {
                try await client.perform(.DELETE, "/api/channels/\(AdminClient.segment(channel))/emergency")
            }
            print("cleared the emergency on \(channel)")
        }
    }
}
