import Prometheus

/// The relay's counters, created once by the server and incremented on the relay's event loop (a kept
/// handle costs an atomic add; no lookup by label per packet).
public struct RelayMetrics: Sendable {
    let received: Counter
    let forwarded: Counter
    let addressChanges: Counter
    /// Copies that found the kernel's send buffer full and were queued in NIO until the socket took them.
    let sendBufferFull: Counter
    /// Catch-ups and replays of kept packets.
    let catchUp: CatchUpMetrics
    /// Copies sent to, and authenticated copies received from, other nodes of a cluster.
    let linkSent: Counter
    let linkReceived: Counter
    private let drops: [Counter]

    /// - Parameter drop: the counter for each reason (called once per reason, here).
    public init(
        received: Counter, forwarded: Counter, addressChanges: Counter, sendBufferFull: Counter,
        catchUp: CatchUpMetrics = CatchUpMetrics(PrometheusCollectorRegistry()),
        links: (sent: Counter, received: Counter)? = nil, drop: (RelayDropReason) -> Counter
    ) {
        self.catchUp = catchUp
        let unregistered = PrometheusCollectorRegistry()
        self.linkSent = links?.sent ?? unregistered.makeCounter(name: "ptt_media_link_packets_sent_total")
        self.linkReceived = links?.received ?? unregistered.makeCounter(name: "ptt_media_link_packets_received_total")
        self.received = received
        self.forwarded = forwarded
        self.addressChanges = addressChanges
        self.sendBufferFull = sendBufferFull
        self.drops = RelayDropReason.allCases.map(drop)
    }

    func dropped(_ reason: RelayDropReason, count: Int = 1) {
        drops[reason.ordinal].increment(by: Int64(count))
    }
}

extension RelayDropReason {
    /// The position in `allCases`, without a lookup.
    var ordinal: Int {
        switch self {
        case .malformed: 0
        case .unknownSSRC: 1
        case .authentication: 2
        case .payloadType: 3
        case .opus: 4
        case .notFloorHolder: 5
        case .receiveOnly: 6
        case .protectFailed: 7
        case .socketError: 8
        }
    }
}
