#if os(Linux)
import NIOCore
import PTTProtocol

/// `--scenario joins`: `members` connections, welcomed beforehand, join channel "storm" evenly over `loadSeconds`
/// (each join written on time, without waiting for the previous answer), while the measuring member works the
/// floor of its own channel.
struct FloorLatencyJoinStorm: FloorLatencyLoad {
    let members: [FloorLatencyConnection]
    let seconds: Double

    static let channel = "storm"

    static func prepare(_ context: FloorLatencyContext, members: Int) async throws -> FloorLatencyJoinStorm {
        let connections = try await context.connect(members, toNewChannel: channel)
        return FloorLatencyJoinStorm(members: connections, seconds: context.loadSeconds)
    }

    func run(origin: NIODeadline, offset: Double) async throws -> FloorLatencyLoadReport {
        let join = try ControlFrame(ControlMessage.join(Join(channel: Self.channel)).withID(1)).bytes
        let spacing = seconds / Double(max(members.count, 1))
        var answers: [EventLoopFuture<TimedAnswer>] = []
        answers.reserveCapacity(members.count)
        for (index, member) in members.enumerated() {
            try await sleepUntil(.after(origin, seconds: offset + Double(index) * spacing))
            answers.append(member.request(join, id: 1, answers: ["joined"], timeout: .seconds(60)))
        }
        var report = FloorLatencyLoadReport(
            what: "\(members.count) members join channel \(Self.channel) over \(seconds) s", startSeconds: offset,
            endSeconds: offset)
        var first: NIODeadline?
        var last: NIODeadline?
        var joins = 0
        for answer in answers {
            do {
                let joined = try await answer.get()
                joins += 1
                first = min(first ?? joined.sent, joined.sent)
                last = max(last ?? joined.received, joined.received)
            } catch {
                report.fail(error)
            }
        }
        report.joins = joins
        if let first, let last {
            report.startSeconds = first.seconds(since: origin)
            report.endSeconds = last.seconds(since: origin)
            report.joinsPerSecond = Double(joins) / max(report.endSeconds - report.startSeconds, 1e-6)
        }
        return report
    }
}
#endif
