#if os(Linux)
import NIOCore
import PTTAdmin
import PTTProtocol

/// `--scenario emergency` (issue 25): floor-grant latency of an emergency in a channel of `members` members.
///
/// The channel "floor" holds the members (welcomed and joined beforehand, without member events) and the measuring
/// member, which is the only device of a user with the emergency right. Before each cycle one ordinary member, the
/// holder, takes the floor and holds it for `held`; the measuring member then declares an emergency, and the time
/// from its `emergency` to its `floor-granted` (the holder revoked on the way) is one sample. It clears the emergency
/// and releases, pauses, and the next cycle starts. Each declaration is stored before the grant: the figure includes a
/// storage write, unlike the other scenarios' floor requests.
struct FloorLatencyEmergency {
    let probe: FloorLatencyConnection
    let holder: FloorLatencyConnection
    let pause: Duration
    /// How long the holder holds the floor before the emergency: long enough (200 ms) and its `floor-taken` to every
    /// member has been written and read, so that the sample is the emergency's own work; 0 measures an emergency
    /// declared the moment another member got the floor, behind that broadcast.
    let held: Duration

    static let channel = "floor"
    static let user = "bench-emergency"

    static func prepare(
        _ context: FloorLatencyContext, members: Int, probeLoop: EventLoop, pause: Duration,
        held: Duration
    ) async throws -> FloorLatencyEmergency {
        let declarer: AddUserResponse = try await context.admin.post(
            "/api/users", body: AddUserRequest(name: user, rights: [.emergency]))
        let join = try ControlFrame(ControlMessage.join(Join(channel: channel, memberEvents: false)).withID(1)).bytes
        let others = try await context.connect(max(members - 1, 1), prefix: "floor-member")
        for start in stride(from: 0, to: others.count, by: 100) {
            let batch = others[start..<min(start + 100, others.count)]
            for answer in batch.map({ $0.request(join, id: 1, answers: ["joined"], timeout: .seconds(60)) }) {
                _ = try await answer.get()
            }
        }
        let hello = try ControlFrame(
            .hello(Hello(user: user, secret: declarer.secret, device: "emergency-probe", client: "pttbench"))
        ).bytes
        let probe = try await FloorLatencyConnection.connect(
            to: context.address, security: context.security, hello: hello, eventLoop: probeLoop,
            timeout: .seconds(30))
        context.connections.add(probe)
        _ = try await probe.request(join, id: 1, answers: ["joined"], timeout: .seconds(30)).get()
        return FloorLatencyEmergency(probe: probe, holder: others[0], pause: pause, held: held)
    }

    /// At most `requests` cycles, until `deadline`; a request that is refused or not answered within `timeout` ends
    /// the run with an error.
    func run(
        requests: Int, origin: NIODeadline, deadline: ContinuousClock.Instant, timeout: TimeAmount
    ) async throws -> [FloorLatencyProbe.Sample] {
        var samples: [FloorLatencyProbe.Sample] = []
        samples.reserveCapacity(requests)
        var id = 2
        func frame(_ message: ControlMessage) throws -> ByteBuffer {
            defer { id += 1 }
            return try ControlFrame(message.withID(id)).bytes
        }
        let channel = Self.channel
        while samples.count < requests, ContinuousClock.now < deadline {
            let take = try frame(.floorRequest(FloorCommand(channel: channel)))
            _ = try await holder.request(
                take, id: id - 1, answers: ["floor-granted"], refusals: ["floor-denied", "floor-queued"],
                timeout: timeout
            ).get()
            try await Task.sleep(for: held)
            let declare = try frame(.emergency(EmergencyRequest(channel: channel)))
            let granted = try await probe.request(
                declare, id: id - 1, answers: ["floor-granted"], refusals: ["floor-denied", "floor-queued"],
                timeout: timeout
            ).get()
            samples.append(
                FloorLatencyProbe.Sample(
                    sentSeconds: granted.sent.seconds(since: origin), nanoseconds: granted.nanoseconds))
            let clear = try frame(.emergencyClear(EmergencyClear(channel: channel)))
            _ = try await probe.request(clear, id: id - 1, answers: ["emergency-cleared"], timeout: timeout).get()
            let release = try frame(.floorRelease(FloorCommand(channel: channel)))
            _ = try await probe.request(release, id: id - 1, answers: ["floor-released"], timeout: timeout).get()
            try await Task.sleep(for: pause)
        }
        return samples
    }
}
#endif
