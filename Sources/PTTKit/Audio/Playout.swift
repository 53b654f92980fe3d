import NIOConcurrencyHelpers
import NIOCore
import PTTProtocol

/// A channel's listening side: what the media session receives goes through a ``JitterBuffer`` and comes out as
/// ``PlayoutItem``s in play-out order. A hole is given up on when its time is over even if nothing else arrives
/// (a timer on the media session's event loop).
final class Playout: Sendable {
    let items: AsyncStream<PlayoutItem>
    private let continuation: AsyncStream<PlayoutItem>.Continuation
    private let state: NIOLockedValueBox<State>

    private struct State {
        var jitter: JitterBuffer<PlayoutPacket>
        var timer: Scheduled<Void>?
        var speakers = SpeakerMarks()
    }

    /// A play-out whose jitter buffer waits `delay` for a missing packet; at most `bound` items wait for the app.
    init(delay: Duration, bound: Int = 500) {
        (items, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(bound))
        state = NIOLockedValueBox(State(jitter: JitterBuffer(delay: UInt64(delay.nanosecondsClamped))))
    }

    /// Who holds the floor now (packets arriving from now on are marked with it, and late packets of the one before
    /// with theirs).
    func setSpeaker(_ speaker: MemberInfo?) { state.withLockedValue { $0.speakers.floor(speaker) } }

    /// The jitter buffer's counts.
    var statistics: JitterBuffer<PlayoutPacket>.Statistics { state.withLockedValue { $0.jitter.statistics } }

    /// One packet from the relay, received on `loop`.
    func insert(_ audio: ReceivedAudio, on loop: EventLoop) {
        let output = state.withLockedValue { state -> [PlayoutItem] in
            let packet = PlayoutPacket(
                opus: audio.payload, sequence: audio.sequenceNumber, timestamp: audio.timestamp,
                startsSpurt: audio.marker, speakerSSRC: audio.speakerSSRC,
                speaker: state.speakers.mark(speakerSSRC: audio.speakerSSRC),
                arrival: audio.arrival)
            var items: [PlayoutItem] = []
            let arrival = state.jitter.insert(
                packet, sequence: packet.sequence, ssrc: audio.ssrc, arrival: packet.arrival)
            if arrival == .late {
                items.append(.late(packet))
            }
            items += Self.items(state.jitter.release(now: ReceivedAudio.clock()))
            schedule(&state, on: loop)
            return items
        }
        for item in output { continuation.yield(item) }
    }

    /// The membership was attached again (a new `joined`): the relay's stream may start again from its first
    /// number (pttd restarted). What is held is played out now, and the next packet starts a new stream.
    func restart() {
        let output = state.withLockedValue { state -> [PlayoutItem] in
            state.timer?.cancel()
            state.timer = nil
            state.jitter.restart()
            return Self.items(state.jitter.release(now: ReceivedAudio.clock()))
        }
        for item in output { continuation.yield(item) }
    }

    /// Releases everything held and ends the stream.
    func finish() {
        let output = state.withLockedValue { state -> [PlayoutItem] in
            state.timer?.cancel()
            return Self.items(state.jitter.flush())
        }
        for item in output { continuation.yield(item) }
        continuation.finish()
    }

    /// Arms the timer for the buffer's next deadline.
    private func schedule(_ state: inout State, on loop: EventLoop) {
        state.timer?.cancel()
        state.timer = nil
        guard let deadline = state.jitter.nextDeadline else { return }
        state.timer = loop.scheduleTask(deadline: NIODeadline.uptimeNanoseconds(deadline)) { [weak self] in
            self?.expire(on: loop)
        }
    }

    private func expire(on loop: EventLoop) {
        let output = state.withLockedValue { state -> [PlayoutItem] in
            let items = Self.items(state.jitter.release(now: ReceivedAudio.clock()))
            schedule(&state, on: loop)
            return items
        }
        for item in output { continuation.yield(item) }
    }

    private static func items(_ output: [JitterBuffer<PlayoutPacket>.Output]) -> [PlayoutItem] {
        output.map { item in
            switch item {
            case .packet(let packet, _): .audio(packet)
            case .gap(let lost): .lost(count: lost)
            }
        }
    }
}
