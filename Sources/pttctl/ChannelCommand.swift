import ArgumentParser
import PTTAdmin
import PTTKit
import PTTProtocol

struct ChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Show, create, delete or record a channel (`pttctl channel NAME` shows it).",
        subcommands: [Show.self, Create.self, Delete.self, Record.self],
        defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Members, floor holder, talk time left and queue of a channel.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "Channel name or id.") var channel: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let client = try admin.client()
            let detail: ChannelDetail = try await adminCall {
                try await client.get("/api/channels/\(AdminClient.segment(channel))")
            }
            if json { return try printJSON(detail) }
            print("channel \(detail.name)  (\(detail.id))\(detail.recording == true ? "  recorded" : "")")
            if let speaker = detail.speaker {
                let left = detail.talkTimeLeftMs.map { String(format: "%.1f s left", Double($0) / 1000) } ?? ""
                print("floor: taken by \(speaker.name) [\(speaker.id)] \(left)")
            } else {
                print("floor: idle")
            }
            if !detail.queue.isEmpty {
                print("queue:")
                for entry in detail.queue {
                    print("  \(entry.position). \(entry.name) [\(entry.member)] priority \(entry.priority)")
                }
            }
            print("")
            if detail.members.isEmpty { return print("no members") }
            print(
                Table.render(
                    header: [
                        "MEMBER", "NAME", "USER", "CONNECTED", "AUDIO", "PRIORITY", "RECV-ONLY", "TOKEN", "WAKE",
                        "LAST WAKE", "LAST HEARTBEAT", "SCAN",
                    ],
                    rows: detail.members.map {
                        [
                            $0.id, $0.name, $0.user,
                            $0.connected
                                ? "yes" : ($0.connections.isEmpty ? "no" : $0.connections.joined(separator: ",")),
                            $0.audioReachable ? "yes" : "no", "\($0.priority)", $0.receiveOnly ? "yes" : "no",
                            $0.pushToken ? "yes" : "no",
                            $0.wakeRoute.rawValue, lastWakeCell($0.lastWake), $0.lastHeartbeat ?? "-",
                            $0.scanRank.map { "\($0)" } ?? "-",
                        ]
                    }))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "Channel name.") var name: String
        @Option(help: "Image URL shown by devices.") var image: String?

        func run() async throws {
            let client = try admin.client()
            let created: ChannelSummary = try await adminCall {
                try await client.post("/api/channels", body: CreateChannelRequest(name: name, imageURL: image))
            }
            print("created channel \(created.name) (\(created.id))")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel and end every membership in it.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "Channel name or id.") var name: String

        func run() async throws {
            let client = try admin.client()
            try await adminCall { try await client.perform(.DELETE, "/api/channels/\(AdminClient.segment(name))") }
            print("deleted channel \(name)")
        }
    }
}
