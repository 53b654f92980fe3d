import ArgumentParser
import PTTAdmin
import PTTKit
import PTTProtocol

/// `pttctl announce`: an operator message stored for every member of a channel until it expires.
struct AnnounceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "announce",
        abstract: "Send an announcement (an alert push) to every member of a channel.",
        discussion:
            "Members with a live connection get it right away; it stays stored, and is delivered again on each new connection, until the device acknowledges it or it expires. A newer announcement with the same --collapse-id replaces an older one still stored."
    )
    @OptionGroup var admin: AdminOptions
    @Argument(help: "Channel name or id.") var channel: String
    @Argument(help: "The message (1 to 1024 bytes of UTF-8).") var text: String
    @Option(help: "Replaces a stored announcement with the same id (at most 64 bytes).") var collapseId: String?
    @Option(
        help: ArgumentHelp(
            "How long it stays deliverable: 90 or 90s, 15m, 2h, 7d; 1 s to 30 d (default 1h).", valueName: "duration"))
    var ttl: String?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        _ = try ttlSeconds()
    }

    func run() async throws {
        let client = try admin.client()
        let request = AnnounceRequest(text: text, collapseId: collapseId, ttlSeconds: try ttlSeconds())
        let answer = try await adminCall { try await client.announce(channel: channel, request) }
        if json { return try printJSON(answer) }
        let members = answer.members == 1 ? "1 member" : "\(answer.members) members"
        print(
            "announced to \(members) of \(answer.channel) (\(answer.handedNow) handed now, \(answer.replaced) replaced); expires \(answer.expiresAt)"
        )
    }

    /// `--ttl` in seconds, nil for the server's default.
    private func ttlSeconds() throws -> Int? {
        guard let ttl else { return nil }
        do { return try parseTTL(ttl) } catch let error as TTLError { throw ValidationError("--ttl: \(error)") }
    }
}
