import ArgumentParser
import Foundation
import PTTAdmin
import PTTKit
import PTTProtocol

/// `pttctl`: inspect and manage a running `pttd` through its admin API.
@main
struct PTTCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pttctl",
        abstract: "Inspect and manage channels and users of a running pttd.",
        discussion:
            "Finds the admin address and token in pttd's data directory (--data, or $PTTD_DATA, default ./.pttd), or takes --url and --token ($PTTCTL_URL, $PTTCTL_TOKEN).",
        subcommands: [
            Channels.self, ChannelCommand.self, Kick.self, Revoke.self, EmergencyCommand.self, CallsCommand.self,
            BroadcastsCommand.self,
            AnnounceCommand.self,
            UserCommand.self,
            WakesCommand.self, HistoryCommand.self, ExportCommand.self, BackupCommand.self, ReloadCommand.self,
            CertCommand.self, NodesCommand.self, Metrics.self,
        ])

    /// `pttctl --data DIR user add NAME` works like `pttctl user add NAME --data DIR`.
    static func main() async {
        await main(AdminOptions.movingLeadingOptions(Array(CommandLine.arguments.dropFirst())))
    }
}

/// Where to find the admin API.
struct AdminOptions: ParsableArguments {
    @Option(name: .long, help: "pttd's data directory.")
    var data: String?

    @Option(name: .long, help: "Admin API base URL, e.g. http://127.0.0.1:7701.")
    var url: String?

    @Option(name: .long, help: "Admin token.")
    var token: String?

    /// The admin options, which belong to every subcommand, may also come before the subcommand's name:
    /// those are moved behind it (before a `--`, if any), where the subcommand parses them.
    static func movingLeadingOptions(_ arguments: [String]) -> [String] {
        let names: Set<String> = ["--data", "--url", "--token"]
        var moved: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex, arguments[index].hasPrefix("--"), arguments[index] != "--" {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard names.contains(name) else { break }
            moved.append(argument)
            if !argument.contains("="), index + 1 < arguments.endIndex {
                moved.append(arguments[index + 1])
                index += 1
            }
            index += 1
        }
        guard !moved.isEmpty else { return arguments }
        var rest = Array(arguments[index...])
        rest.insert(contentsOf: moved, at: rest.firstIndex(of: "--") ?? rest.endIndex)
        return rest
    }

    func client() throws -> AdminClient {
        let env = ProcessInfo.processInfo.environment
        if let url = url ?? env["PTTCTL_URL"] {
            guard let token = token ?? env["PTTCTL_TOKEN"] else {
                throw ValidationError("--url needs --token (or $PTTCTL_TOKEN)")
            }
            return AdminClient(baseURL: url, token: token)
        }
        return try AdminClient.fromDataDirectory(data ?? env["PTTD_DATA"] ?? "./.pttd")
    }
}

/// Runs an admin call, turning API errors into a clean message and exit code 1.
func adminCall<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let error as AdminError {
        FileHandle.standardError.write(Data("pttctl: \(error.message)\n".utf8))
        throw ExitCode(1)
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

struct Channels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List channels: members (connected/total), floor, speaker, queue, emergency.")
    @OptionGroup var admin: AdminOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let client = try admin.client()
        let channels: [ChannelSummary] = try await adminCall { try await client.get("/api/channels") }
        if json { return try printJSON(channels) }
        if channels.isEmpty { return print("no channels") }
        // In a cluster (some channel has an owner node), the owner is a column.
        let clustered = channels.contains { $0.owner != nil }
        print(
            Table.render(
                header: ["CHANNEL", "MEMBERS", "FLOOR", "SPEAKER", "QUEUE", "EMERGENCY"] + (clustered ? ["OWNER"] : []),
                rows: channels.map {
                    [
                        $0.name, "\($0.connected)/\($0.members)", $0.floor.rawValue, $0.speaker ?? "-",
                        "\($0.queueLength)", $0.emergency?.rawValue.uppercased() ?? "-",
                    ]
                        + (clustered ? [$0.owner ?? "-"] : [])
                }))
    }
}

struct Kick: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End a member's membership of a channel.")
    @OptionGroup var admin: AdminOptions
    @Argument(help: "Channel name or id.") var channel: String
    @Argument(help: "Member id, display name, device or user name.") var member: String

    func run() async throws {
        let client = try admin.client()
        try await adminCall {
            try await client.perform(
                .DELETE, "/api/channels/\(AdminClient.segment(channel))/members/\(AdminClient.segment(member))")
        }
        print("kicked \(member) from \(channel)")
    }
}

struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Take the floor away from whoever holds it.")
    @OptionGroup var admin: AdminOptions
    @Argument(help: "Channel name or id.") var channel: String

    func run() async throws {
        let client = try admin.client()
        try await adminCall { try await client.perform(.POST, "/api/channels/\(AdminClient.segment(channel))/revoke") }
        print("floor of \(channel) revoked")
    }
}

struct Metrics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the Prometheus metrics.")
    @OptionGroup var admin: AdminOptions

    func run() async throws {
        let client = try admin.client()
        print(try await adminCall { try await client.getText("/metrics") }, terminator: "")
    }
}
