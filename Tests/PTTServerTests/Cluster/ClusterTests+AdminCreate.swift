import Foundation
import PTTAdmin
import PTTProtocol
import TestSupport
import Testing

/// The admin API of two nodes creating the same channel at once: one node stores it, the other answers 409
/// `conflict`, never a 500, and afterwards both nodes know the one channel.
extension ClusterTests {
    @Test("the same channels created at the same instant through two nodes' admin APIs: one 201 and one 409 each")
    func simultaneousAdminCreates() async throws {
        let cluster = try await Self.cluster("n1", "n2")
        defer { cluster.kill() }
        let (n1, n2) = (cluster.nodes[0], cluster.nodes[1])
        let names = (1...12).map { "bay-\($0)" }
        let admins = [try n1.admin, try n2.admin]
        let answers = await withTaskGroup(of: (String, String).self) { group in
            for name in names {
                for admin in admins {
                    group.addTask {
                        do {
                            let _: ChannelSummary = try await admin.post(
                                "/api/channels", body: CreateChannelRequest(name: name))
                            return (name, "created")
                        } catch let error as AdminError {
                            return (name, error.error == "conflict" ? "conflict" : "\(error.error): \(error.message)")
                        } catch {
                            return (name, "\(error)")
                        }
                    }
                }
            }
            return await group.reduce(into: [String: [String]]()) { $0[$1.0, default: []].append($1.1) }
        }
        for name in names {
            let got = try #require(answers[name]).sorted()
            #expect(got == ["conflict", "created"], "\(name): \(got)")
        }
        // Both nodes end up with every channel (the losing node loaded the directory again).
        for node in [n1, n2] {
            _ = try await Self.eventually("\(node.name) lists every channel", timeout: .seconds(10)) {
                let channels: [ChannelSummary] = try await node.admin.get("/api/channels")
                return Set(channels.map(\.name)).isSuperset(of: names)
            }
        }
    }
}
