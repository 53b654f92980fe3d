#if os(Linux)
import NIOCore
import PTTProtocol

/// `--scenario churn`: `clients` connections, welcomed beforehand, each joining and leaving channel "churn" as fast
/// as pttd answers (join → `joined` → leave → `left` → join…) for `loadSeconds`, while the measuring member works
/// the floor of its own channel.
struct FloorLatencyChurn: FloorLatencyLoad {
    let clients: [FloorLatencyConnection]
    let seconds: Double

    static let channel = "churn"

    static func prepare(_ context: FloorLatencyContext, clients: Int) async throws -> FloorLatencyChurn {
        let connections = try await context.connect(clients, toNewChannel: channel)
        return FloorLatencyChurn(clients: connections, seconds: context.loadSeconds)
    }

    /// One client's tally.
    private struct Tally: Sendable {
        var joins = 0
        var leaves = 0
        var failures = 0
        var firstFailure: String?
    }

    func run(origin: NIODeadline, offset: Double) async throws -> FloorLatencyLoadReport {
        let join = try ControlFrame(ControlMessage.join(Join(channel: Self.channel)).withID(1)).bytes
        let leave = try ControlFrame(ControlMessage.leave(Leave(channel: Self.channel)).withID(2)).bytes
        let start = NIODeadline.after(origin, seconds: offset)
        let end = NIODeadline.after(start, seconds: seconds)
        try await sleepUntil(start)
        let tallies = await withTaskGroup(of: Tally.self) { group in
            for client in clients {
                group.addTask {
                    var tally = Tally()
                    var joined = false
                    // Bounded by time, and by count (no client does a million requests in a run).
                    while NIODeadline.now() < end, tally.joins + tally.leaves + tally.failures < 1_000_000 {
                        do {
                            if joined {
                                _ = try await client.request(leave, id: 2, answers: ["left"], timeout: .seconds(30))
                                    .get()
                                tally.leaves += 1
                            } else {
                                _ = try await client.request(join, id: 1, answers: ["joined"], timeout: .seconds(30))
                                    .get()
                                tally.joins += 1
                            }
                            joined.toggle()
                        } catch {
                            tally.failures += 1
                            joined = false  // a join is always allowed (a member's join refreshes it)
                            if tally.firstFailure == nil { tally.firstFailure = "\(error)" }
                            if case FloorLatencyError.closed = error { break }
                        }
                    }
                    return tally
                }
            }
            var all: [Tally] = []
            for await tally in group { all.append(tally) }
            return all
        }
        let stopped = NIODeadline.now()
        var report = FloorLatencyLoadReport(
            what:
                "\(clients.count) clients join and leave channel \(Self.channel) as fast as answered for \(seconds) s",
            startSeconds: offset, endSeconds: stopped.seconds(since: origin))
        let joins = tallies.map(\.joins).reduce(0, +)
        let leaves = tallies.map(\.leaves).reduce(0, +)
        let wall = max(report.endSeconds - report.startSeconds, 1e-6)
        report.joins = joins
        report.leaves = leaves
        report.joinsPerSecond = Double(joins) / wall
        report.leavesPerSecond = Double(leaves) / wall
        report.failures = tallies.map(\.failures).reduce(0, +)
        report.firstFailure = tallies.compactMap(\.firstFailure).first
        return report
    }
}
#endif
