#if os(Linux)
import PTTKit
import PTTProtocol

extension PTTBench {
    /// `--scanners`: each of these listeners' devices joins "bench-quiet", where nobody talks, and scans it above
    /// "bench", so pttd keeps a scan list for each and hears the bench's bursts through it (the quiet channel being
    /// silent, "bench" is the one heard).
    func scan(_ clients: [ControlClient]) async throws {
        guard !clients.isEmpty else { return }
        for client in clients {
            let joined = try await client.request(.join(Join(channel: "bench-quiet")), timeout: .seconds(30))
            guard case .joined = joined else { throw BenchError("join bench-quiet answered \(joined.type)") }
            let reply = try await client.request(
                .scan(ScanRequest(channels: ["bench-quiet", "bench"], resume: .live)), timeout: .seconds(30))
            guard case .scanSet(let set) = reply, set.channels.map(\.name) == ["bench-quiet", "bench"] else {
                throw BenchError("scan answered \(reply.type)")
            }
        }
        progress("\(clients.count) listeners scan bench-quiet, bench")
    }
}
#endif
