import ArgumentParser
import Foundation
import PTTAdmin
import PTTProtocol

/// `pttctl broadcasts`: the broadcasts running; `pttctl broadcasts end ID` ends one.
struct BroadcastsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broadcasts", abstract: "List the broadcasts running, or end one.",
        subcommands: [List.self, End.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the broadcasts running, oldest first.")
        @OptionGroup var admin: AdminOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let client = try admin.client()
            let broadcasts: [BroadcastStatus] = try await adminCall { try await client.get("/api/broadcasts") }
            if json { return try printJSON(broadcasts) }
            if broadcasts.isEmpty { return print("no broadcasts") }
            print(
                Table.render(
                    header: ["BROADCAST", "SPEAKER", "CHANNELS", "SINCE"],
                    rows: broadcasts.map {
                        [$0.id, "\($0.speakerName) (\($0.speaker))", $0.channels.joined(separator: ","), $0.since]
                    }))
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a broadcast: its sender loses the floor, every member is told (broadcast-ended operator).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The broadcast's id (pttctl broadcasts).") var broadcast: String

        func run() async throws {
            let client = try admin.client()
            try await adminCall {
                try await client.perform(.DELETE, "/api/broadcasts/\(AdminClient.segment(broadcast))")
            }
            print("ended broadcast \(broadcast)")
        }
    }
}
