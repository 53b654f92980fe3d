import NIOCore
import PTTCore

/// The relay's state for one channel, on the relay's event loop.
struct RelayChannelState {
    var config: RelayChannelConfig
    /// The holder's SSRC, for the per-packet check.
    var holderSSRC: UInt32?
    /// Every member, for the fan-out loop (no lookups per listener).
    var members: [RelayMember] = []
    /// Timestamp mapping shared by every listener: out = in &+ offset during a burst.
    var timestampOffset: UInt32 = 0
    /// The SSRC that sent the current burst.
    var burstSSRC: UInt32?
    var lastOutTimestamp: UInt32 = 0
    var lastOutTime: NIODeadline?

    init(config: RelayChannelConfig) {
        self.config = config
    }

    mutating func apply(_ config: RelayChannelConfig, members: [RelayMember]) {
        self.config = config
        self.members = members
        holderSSRC = config.holder.flatMap { holder in config.members.first { $0.id == holder }?.ssrc }
        if holderSSRC == nil { burstSSRC = nil }
    }

    /// Maps an incoming timestamp into the channel's continuous timeline. Starts a new burst when the
    /// speaker changed or the floor was idle: the timeline then advances with wall-clock time since the last
    /// packet sent (at least one 20 ms frame), so receivers see real gaps. Returns the timestamp and whether
    /// it starts a burst.
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
