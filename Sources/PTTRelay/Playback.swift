import NIOCore

/// Kept packets going out to one member, paced: a catch-up of the current burst (faster than real time, until
/// the member reaches the live packets), or a recorded burst replayed to that member alone (real time).
struct Playback {
    enum Kind: Equatable {
        /// The current burst from the first packet the member missed, then live.
        case catchUp
        /// A recorded burst, to this member only; live audio to the member cancels it.
        case replay(id: Int64)
    }

    let kind: Kind
    let buffer: BurstBuffer
    /// The number of the next packet to send.
    var next: Int
    var pacer: PlaybackPacer
    /// The timestamp the listener gets for a packet: `timestampBase + (its timestamp - pacer.origin)`.
    let timestampBase: UInt32
    /// Packets sent so far.
    var sent = 0
    /// When the last packet sent had arrived at the relay.
    var lastArrival: NIODeadline?

    /// The timestamp a kept packet goes out with.
    func timestamp(of entry: BurstBuffer.Entry) -> UInt32 { timestampBase &+ (entry.timestamp &- pacer.origin) }
}

/// When each kept packet of a playback is due: at `speed` times real time from the first, by RTP timestamps
/// (48 kHz), so silence kept in a burst (DTX) is shortened by the same factor. Pure: the instants are given.
struct PlaybackPacer: Equatable {
    /// The RTP timestamp of the first packet played.
    let origin: UInt32
    /// When the first packet was due.
    let start: NIODeadline
    /// Audio time per wall-clock time.
    let speed: Double

    /// Whether the packet with `timestamp` is due at `now`.
    func isDue(_ timestamp: UInt32, now: NIODeadline) -> Bool {
        // Within a burst, timestamps only move forward; the difference is read as unsigned (wrapping).
        let audio = Double(timestamp &- origin) / 48_000
        let wall = Double((now - start).nanoseconds) / 1e9
        return audio <= wall * speed
    }
}
