import ArgumentParser
import PTTAdmin
import PTTKit
import PTTProtocol

/// `pttctl wakes`: what the wake notifier did since the server started.
struct WakesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wakes",
        abstract: "Show wake, leave and announcement pushes by kind, transport and outcome since pttd started.",
        discussion:
            "Above the table: the APNs transport (configured or not, endpoint, provider token age, back-off) and how many announcements are stored and wakes pending."
    )
    @OptionGroup var admin: AdminOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let client = try admin.client()
        let totals = try await adminCall { try await client.wakes() }
        if json { return try printJSON(totals) }
        wakeSummaryLines(totals).forEach { print($0) }
        print("")
        if totals.counts.isEmpty { return print("no pushes yet") }
        print(
            Table.render(
                header: ["KIND", "TRANSPORT", "OUTCOME", "REASON", "COUNT"], rows: wakeCountRows(totals.counts)))
    }
}
