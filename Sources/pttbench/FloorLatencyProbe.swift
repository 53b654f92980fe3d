#if os(Linux)
import NIOCore
import PTTProtocol

/// The measuring member of `pttbench floor-latency`: alone in its channel, it requests the floor, waits for
/// `floor-granted`, releases, waits for `floor-released`, pauses, and does it again. Each request → grant time is
/// taken on the event loop (the write, and the read of the answer), so the bench's own scheduling is not in it.
struct FloorLatencyProbe {
    let connection: FloorLatencyConnection
    let channel: String
    /// The pause between a release's answer and the next request.
    let pause: Duration

    /// One request → `floor-granted` time, and when (seconds after `origin`) the request was written.
    struct Sample: Sendable {
        var sentSeconds: Double
        var nanoseconds: UInt64
    }

    /// Runs at most `requests` cycles, until `deadline`, stopping early when `enough()` says so (checked between
    /// cycles). A request or release that is refused or not answered within `timeout` ends the run with an error.
    func run(
        requests: Int, origin: NIODeadline, deadline: ContinuousClock.Instant, timeout: TimeAmount,
        enough: @Sendable () -> Bool
    ) async throws -> [Sample] {
        var samples: [Sample] = []
        samples.reserveCapacity(requests)
        var id = 1
        while samples.count < requests, ContinuousClock.now < deadline, !enough() {
            let request = try ControlFrame(.floorRequest(FloorCommand(channel: channel)).withID(id)).bytes
            let granted = try await connection.request(
                request, id: id, answers: ["floor-granted"], refusals: ["floor-denied", "floor-queued"],
                timeout: timeout
            ).get()
            samples.append(
                Sample(
                    sentSeconds: Double(granted.sent.uptimeNanoseconds - origin.uptimeNanoseconds) / 1e9,
                    nanoseconds: granted.nanoseconds))
            let release = try ControlFrame(.floorRelease(FloorCommand(channel: channel)).withID(id + 1)).bytes
            _ = try await connection.request(release, id: id + 1, answers: ["floor-released"], timeout: timeout)
                .get()
            id += 2
            try await Task.sleep(for: pause)
        }
        return samples
    }
}

/// p50, p90, p99, max, mean and count of a set of request → grant times, from a `LatencyHistogram` (1 µs buckets
/// below 100 ms, 1 ms above; the maximum exact).
struct FloorLatencySummary: Codable, Sendable {
    var count: Int
    var p50Ms: Double?
    var p90Ms: Double?
    var p99Ms: Double?
    var maxMs: Double?
    var meanMs: Double?

    init(_ samples: [FloorLatencyProbe.Sample]) {
        var histogram = LatencyHistogram()
        defer { histogram.deallocate() }
        for sample in samples { histogram.record(sample.nanoseconds) }
        let latency = LatencySummary(histogram)
        count = histogram.total
        p50Ms = latency.p50
        p90Ms = latency.p90
        p99Ms = latency.p99
        maxMs = latency.max
        meanMs = latency.mean
    }
}
#endif
