/// Stamps and paces the Opus packets an app's encoder hands over: each gets the next RTP timestamp and a time to be
/// sent, one packet's duration after the one before, so packets handed over in a burst (an encoder that delivers
/// three frames at once, a file) leave at the pace they play at. A packet handed over late is sent at once, and the
/// timestamp jumps over the silence if the pause was longer than two packets (DTX, or the app stopped sending).
///
/// Pure: times are monotonic nanoseconds the caller passes in.
public struct TalkPacer: Sendable, Equatable {
    /// The RTP clock rate of Opus.
    public static let clockRate: UInt64 = 48_000

    /// The timestamp the next packet gets.
    public private(set) var timestamp: UInt32
    /// When the next packet is due, while a talk spurt goes on.
    public private(set) var nextDue: UInt64?

    /// A pacer whose first timestamp is `timestamp` (random, as RFC 3550 asks).
    public init(timestamp: UInt32) { self.timestamp = timestamp }

    /// What to do with one packet.
    public struct Slot: Sendable, Equatable {
        /// Its RTP timestamp.
        public var timestamp: UInt32
        /// Whether it starts a talk spurt (the RTP marker bit).
        public var marker: Bool
        /// When to send it.
        public var sendAt: UInt64

        /// A slot: `timestamp`, `marker`, `sendAt`.
        public init(timestamp: UInt32, marker: Bool, sendAt: UInt64) {
            self.timestamp = timestamp
            self.marker = marker
            self.sendAt = sendAt
        }
    }

    /// Places a packet of `samples` samples at 48 kHz handed over at `now`.
    public mutating func place(samples: Int, now: UInt64) -> Slot {
        let duration = UInt64(max(samples, 0)) * 1_000_000_000 / Self.clockRate
        let marker = nextDue == nil
        var sendAt = nextDue ?? now
        if sendAt < now {
            // Late: send now; a pause longer than two packets is silence the timestamps must show.
            let lateness = now - sendAt
            if duration > 0, lateness > 2 * duration {
                let skipped = lateness / duration * UInt64(samples)
                timestamp &+= UInt32(truncatingIfNeeded: skipped)
            }
            sendAt = now
        }
        let slot = Slot(timestamp: timestamp, marker: marker, sendAt: sendAt)
        timestamp &+= UInt32(truncatingIfNeeded: samples)
        nextDue = sendAt + duration
        return slot
    }

    /// Ends the talk spurt: the next packet is marked and sent at once.
    public mutating func endSpurt() { nextDue = nil }
}
