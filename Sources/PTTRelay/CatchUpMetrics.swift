import Prometheus

/// How a playback of kept packets ended (the `outcome` label of `ptt_catchup_finished_total`).
public enum PlaybackOutcome: String, CaseIterable, Sendable {
    /// A catch-up reached the live packets of a burst still going on.
    case live
    /// Every kept packet was sent, after the burst had ended (or the whole recorded burst, for a replay).
    case ended
    /// A new burst (live audio wins), the member leaving or its membership changing stopped it.
    case cancelled
}

/// The counters of catch-ups and replays, made once by the server (handles kept; an increment is an atomic add).
public struct CatchUpMetrics: Sendable {
    let started: Counter
    /// Kept packets sent to members catching up.
    let packets: Counter
    private let finished: [Counter]
    /// How far behind the live packets a catch-up was when it ended.
    let lag: DurationHistogram
    /// Packets dropped from kept bursts by the channel's or the server's bound.
    let evicted: Counter
    /// Packets a catch-up could not send because they had been dropped before its turn.
    let skipped: Counter
    /// Recorded bursts replayed to one member, their packets, and how the replays ended.
    let replays: Counter
    let replayPackets: Counter
    /// Packets of recorded bursts dropped by a bound before they reached the recorder.
    let recordingLost: Counter
    private let replaysFinished: [Counter]

    /// Registers every series in `registry` (names `ptt_catchup_*` and `ptt_replay_*`).
    public init(_ registry: PrometheusCollectorRegistry) {
        started = registry.makeCounter(
            name: "ptt_catchup_started_total", help: "Members that started catching up with the current burst")
        packets = registry.makeCounter(
            name: "ptt_catchup_packets_total", help: "Kept packets sent to members catching up")
        finished = PlaybackOutcome.allCases.map {
            registry.makeCounter(
                name: "ptt_catchup_finished_total", labels: [("outcome", $0.rawValue)],
                help: "Catch-ups that ended, by how")
        }
        lag = registry.makeDurationHistogram(
            name: "ptt_catchup_lag_seconds",
            buckets: [
                .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                .seconds(1), .seconds(2), .seconds(5),
            ],
            help: "How far behind the newest packet a catch-up was when it ended")
        evicted = registry.makeCounter(
            name: "ptt_catchup_evicted_packets_total",
            help: "Packets dropped from kept bursts by the per-channel or the server-wide bound")
        skipped = registry.makeCounter(
            name: "ptt_catchup_skipped_packets_total",
            help: "Packets a catch-up could not send because a bound had dropped them")
        replays = registry.makeCounter(
            name: "ptt_replay_started_total", help: "Recorded bursts replayed to one member")
        replayPackets = registry.makeCounter(
            name: "ptt_replay_packets_total", help: "Packets of recorded bursts sent to one member")
        recordingLost = registry.makeCounter(
            name: "ptt_recording_lost_packets_total",
            help: "Packets of recorded bursts dropped by a bound before they reached the recorder")
        replaysFinished = PlaybackOutcome.allCases.map {
            registry.makeCounter(
                name: "ptt_replay_finished_total", labels: [("outcome", $0.rawValue)],
                help: "Replays that ended, by how")
        }
    }

    func finished(_ kind: Playback.Kind, _ outcome: PlaybackOutcome) {
        let index = PlaybackOutcome.allCases.firstIndex(of: outcome)!
        if case .catchUp = kind { finished[index].increment() } else { replaysFinished[index].increment() }
    }
}
