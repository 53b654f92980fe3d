import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

/// `pttctl nodes`: the nodes of the cluster, from any of them.
struct NodesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nodes",
        abstract: "List the nodes of the cluster (pttd --cluster): which run, where, since when.")
    @OptionGroup var admin: AdminOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let client = try admin.client()
        let answer: NodesResponse = try await adminCall { try await client.get("/api/nodes") }
        if json { return try printJSON(answer) }
        print(
            Table.render(
                header: ["NODE", "STATE", "CONTROL", "ADMIN", "HOST", "PID", "SINCE"],
                rows: answer.nodes.map { node in
                    let state = node.alive ? "running" : node.stoppedAt == nil ? "down (no clean stop)" : "stopped"
                    let since = node.alive ? node.startedAt : node.stoppedAt ?? "-"
                    return [
                        node.name + (node.name == answer.node ? " *" : ""), state, node.control, node.adminURL,
                        node.host, "\(node.pid)", since,
                    ]
                }))
        print("* the node that answered")
    }
}
