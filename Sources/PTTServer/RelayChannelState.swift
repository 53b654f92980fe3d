import NIOCore
import PTTCore

/// One listener's continuous outgoing stream: its own SSRC and sequence numbers across speakers.
struct ListenerStream {
    var nextSequence: UInt16
    init(seed: UInt16) { nextSequence = seed }
}

/// The relay's state for one channel, on the relay's event loop.
struct RelayChannelState {
    var config: RelayChannelConfig
    /// The holder's SSRC, for the per-packet check.
    var holderSSRC: UInt32?
    /// Members of the channel by id, with their outgoing streams.
    var streams: [MemberID: ListenerStream] = [:]
    /// Timestamp mapping shared by every listener: out = in &+ offset during a burst.
    var timestampOffset: UInt32 = 0
    /// The SSRC that sent the current burst, and whether its first packet went out (marker bit).
    var burstSSRC: UInt32?
    var lastOutTimestamp: UInt32 = 0
    var lastOutTime: NIODeadline?

    init(config: RelayChannelConfig) {
        self.config = config
        apply(config)
    }

    mutating func apply(_ config: RelayChannelConfig) {
        self.config = config
        holderSSRC = config.holder.flatMap { holder in config.members.first { $0.id == holder }?.ssrc }
        if holderSSRC == nil { burstSSRC = nil }
        var next: [MemberID: ListenerStream] = [:]
        for member in config.members {
            next[member.id] = streams[member.id] ?? ListenerStream(seed: UInt16(truncatingIfNeeded: member.listenSSRC >> 7))
        }
        streams = next
    }

    /// Maps an incoming timestamp into the channel's continuous timeline. Starts a new burst when the
    /// speaker changed or the floor was idle: the timeline then advances with wall-clock time since the last
    /// packet sent, so receivers see real gaps. Returns the timestamp and whether it starts a burst.
    mutating func mapTimestamp(_ incoming: UInt32, from ssrc: UInt32, now: NIODeadline) -> (UInt32, startsBurst: Bool) {
        var starts = false
        if burstSSRC != ssrc {
            starts = true
            burstSSRC = ssrc
            var target = lastOutTimestamp
            if let lastOutTime {
                let elapsed = max(0, (now - lastOutTime).nanoseconds)
                target = lastOutTimestamp &+ UInt32(truncatingIfNeeded: max(960, elapsed / 1_000_000 * 48))
            }
            timestampOffset = target &- incoming
        }
        let out = incoming &+ timestampOffset
        lastOutTimestamp = out
        lastOutTime = now
        return (out, starts)
    }
}
