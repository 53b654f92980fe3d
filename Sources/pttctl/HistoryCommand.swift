import ArgumentParser
import Foundation
import PTTAdmin
import PTTKit
import PTTProtocol

/// A span of time back from now: `90s`, `30m`, `1h`, `2d` (a bare number is seconds), as `--ttl` reads them.
struct TimeSpan: ExpressibleByArgument {
    let seconds: Int

    init?(argument: String) {
        guard let seconds = try? parseDuration(argument) else { return nil }
        self.seconds = seconds
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List a channel's recorded bursts, newest first, with speaker and times.")
    @OptionGroup var admin: AdminOptions
    @Argument(help: "Channel name or id.") var channel: String
    @Option(help: "Only bursts started within this span: 90s, 30m, 1h, 2d.") var since: TimeSpan?
    @Option(help: "At most this many bursts.") var limit = 100
    @Flag(help: "The recordings of deleted channels that had this name (kept until retention removes them).")
    var deleted = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let client = try admin.client()
        var path = "/api/channels/\(AdminClient.segment(channel))/bursts?limit=\(limit)"
        if let since { path += "&since=\(since.seconds)" }
        if deleted { path += "&deleted=true" }
        let bursts: [RecordedBurstInfo] = try await adminCall { try await client.get(path) }
        if json { return try printJSON(bursts) }
        if bursts.isEmpty { return print("no recorded bursts") }
        print(
            Table.render(
                header: ["BURST", "STARTED", "DURATION", "SPEAKER", "PACKETS", "SIZE", "STATE"],
                rows: bursts.map {
                    [
                        "\($0.id)", $0.startedAt, String(format: "%.1f s", Double($0.durationMs) / 1000),
                        "\($0.speakerName) (\($0.speaker))", "\($0.packets)", "\($0.bytes / 1024) KiB",
                        $0.state.rawValue,
                    ]
                }))
    }
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write recorded bursts to one Ogg Opus file: a channel's since a time, or one burst.",
        discussion: "pttctl export deck --since 1h -o deck.ogg\npttctl export --burst 42 -o burst.ogg")
    @OptionGroup var admin: AdminOptions
    @Argument(help: "Channel name or id (not with --burst).") var channel: String?
    @Option(help: "Bursts started within this span: 90s, 30m, 1h, 2d (default: all kept).") var since: TimeSpan?
    @Option(help: "One recorded burst by id (pttctl history).") var burst: Int64?
    @Flag(help: "The recordings of deleted channels that had this name.") var deleted = false
    @Option(name: .customLong("gap-ms"), help: "Silence between two bursts is shortened to this.") var gapMs = 500
    @Option(name: .shortAndLong, help: "The file to write.") var output: String

    func validate() throws {
        if (channel == nil) == (burst == nil) { throw ValidationError("name a channel, or give --burst ID") }
        if burst != nil, since != nil || deleted {
            throw ValidationError("--since and --deleted go with a channel, not --burst")
        }
        guard (0...60_000).contains(gapMs) else { throw ValidationError("--gap-ms must be 0...60000") }
    }

    func run() async throws {
        let client = try admin.client()
        let path: String
        if let burst {
            path = "/api/bursts/\(burst)/audio"
        } else {
            var query = "/api/channels/\(AdminClient.segment(channel!))/export?gapMs=\(gapMs)"
            if let since { query += "&since=\(since.seconds)" }
            if deleted { query += "&deleted=true" }
            path = query
        }
        let bytes = try await adminCall { try await client.getBytes(path) }
        guard FileManager.default.createFile(atPath: output, contents: Data(bytes)) else {
            FileHandle.standardError.write(Data("pttctl: cannot write \(output)\n".utf8))
            throw ExitCode(1)
        }
        print("wrote \(output) (\(bytes.count / 1024) KiB)")
    }
}
