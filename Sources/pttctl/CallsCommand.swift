import ArgumentParser
import Foundation
import PTTAdmin
import PTTProtocol

/// `pttctl calls`: the private calls that ring or are connected; `pttctl calls end ID` ends one.
struct CallsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calls", abstract: "List private calls (ringing, held, connected), or end one.",
        subcommands: [List.self, End.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the private calls, oldest first.")
        @OptionGroup var admin: AdminOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let client = try admin.client()
            let calls: [CallStatus] = try await adminCall { try await client.get("/api/calls") }
            if json { return try printJSON(calls) }
            if calls.isEmpty { return print("no calls") }
            print(
                Table.render(
                    header: ["CALL", "CALLER", "CALLEE", "PHASE", "SINCE"],
                    rows: calls.map { call in
                        let phase = call.talking == true ? "connected, talking" : call.phase.rawValue
                        return [call.id, "\(call.callerName) (\(call.caller))", call.callee, phase, call.since]
                    }))
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a call, ringing or connected: both sides are told (call-ended operator).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The call's id (pttctl calls).") var call: String

        func run() async throws {
            let client = try admin.client()
            try await adminCall { try await client.perform(.DELETE, "/api/calls/\(AdminClient.segment(call))") }
            print("ended call \(call)")
        }
    }
}
