import NIOCore
import PTTProtocol
import Prometheus
import Synchronization

/// How long the server took to grant a floor it could grant at once: from the read of a connection's
/// `floor-request` or `emergency` to the write of the `floor-granted` that answers it (`ptt_floor_grant_seconds`).
///
/// The server's own share of what a talker waits for: it leaves out the network and the client's TLS, and it is
/// observed only for a grant that answers its request directly (a request queued, denied or refused is not timed).
/// One ask is remembered per connection, the last one read: a client has one floor request in flight at a time.
/// Touched on the connection's event loop only (the lock makes the type `Sendable`; it is never contended).
final class FloorAskTiming: Sendable {
    private struct Ask {
        var kind: FloorAskKind
        var id: Int?
        /// The channel as the ask named it (name or UUID).
        var channel: String
        /// `NIODeadline.uptimeNanoseconds` of the ask's read.
        var readAt: UInt64
    }

    private let ask = Mutex<Ask?>(nil)
    private let histograms: FloorGrantHistograms

    init(_ histograms: FloorGrantHistograms) {
        self.histograms = histograms
    }

    /// A frame was read from the connection: a floor ask starts the clock (`time`: now, unless a test says).
    func read(_ message: ControlMessage, at time: NIODeadline? = nil) {
        let started: (kind: FloorAskKind, id: Int?, channel: String)
        switch message {
        case .floorRequest(let request):
            // Its answer carries `re`: without an id there is nothing to tell it by.
            guard let id = request.id else { return }
            started = (.floorRequest, id, request.channel)
        case .emergency(let request):
            started = (.emergency, request.id, request.channel)
        default:
            return
        }
        let readAt = (time ?? .now()).uptimeNanoseconds
        ask.withLock { $0 = Ask(kind: started.kind, id: started.id, channel: started.channel, readAt: readAt) }
    }

    /// Whether a frame of this kind may answer an ask (``writing(_:at:)`` needs to see it).
    static func answers(_ kind: ControlMessage.Kind) -> Bool {
        switch kind {
        case .floorGranted, .floorDenied, .floorQueued, .error: true
        default: false
        }
    }

    /// A frame is being written to the connection: the grant answering the ask stops the clock; a queued, denied
    /// or refused answer forgets the ask. A `floor-request`'s answer carries its `re`; an emergency's grant or
    /// denial comes without `re`, on the channel it named (Docs/PROTOCOL.md 5.32), and a refusal with `re`.
    func writing(_ message: ControlMessage, at now: NIODeadline = .now()) {
        let observed: (FloorAskKind, UInt64)? = ask.withLock { pending in
            guard let current = pending else { return nil }
            let granted: Bool
            let channel: ChannelInfo?
            switch message {
            case .floorGranted(let m): (granted, channel) = (true, m.channel)
            case .floorQueued(let m): (granted, channel) = (false, m.channel)
            case .floorDenied(let m): (granted, channel) = (false, m.channel)
            case .error: (granted, channel) = (false, nil)
            default: return nil
            }
            let answersIt =
                switch current.kind {
                case .floorRequest: message.re == current.id
                case .emergency:
                    if let channel {
                        message.re == nil && (channel.name == current.channel || channel.id == current.channel)
                    } else {
                        // A refusal: with the ask's `re`, or any error when the ask had no id to answer.
                        current.id == nil || message.re == current.id
                    }
                }
            guard answersIt else { return nil }
            pending = nil
            return granted ? (current.kind, now.uptimeNanoseconds &- current.readAt) : nil
        }
        if let (kind, elapsed) = observed { histograms.observe(kind, nanoseconds: elapsed) }
    }
}

/// What asked for the floor: `request` in `ptt_floor_grant_seconds`.
enum FloorAskKind: UInt8, CaseIterable {
    case floorRequest = 1
    case emergency = 2

    var label: String {
        switch self {
        case .floorRequest: "floor-request"
        case .emergency: "emergency"
        }
    }
}

/// `ptt_floor_grant_seconds`, one histogram per ``FloorAskKind``.
final class FloorGrantHistograms: Sendable {
    private let byKind: [FloorAskKind: DurationHistogram]
    /// From a quarter of a millisecond (an idle server) to a second (a server that is stalled), finer around the
    /// 10 ms a grant should take at most.
    static let buckets: [Duration] = [0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 25, 50, 100, 250, 1000].map {
        .microseconds(Int64($0 * 1000))
    }

    init(_ registry: PrometheusCollectorRegistry) {
        byKind = Dictionary(
            uniqueKeysWithValues: FloorAskKind.allCases.map {
                (
                    $0,
                    registry.makeDurationHistogram(
                        name: "ptt_floor_grant_seconds", labels: [("request", $0.label)], buckets: Self.buckets,
                        help: "From the read of a floor request or emergency to the write of the grant that "
                            + "answers it at once (the server's share of a talker's wait)")
                )
            })
    }

    func observe(_ kind: FloorAskKind, nanoseconds: UInt64) {
        byKind[kind]?.record(.nanoseconds(Int64(clamping: nanoseconds)))
    }
}
