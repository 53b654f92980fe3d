extension OggOpusWriter {
    /// The page being filled: its audio packets and samples so far, and the limits that close it.
    struct PageFill: Sendable {
        /// Close the page once it holds this many packets.
        let maxPackets: Int
        /// Close the page once it holds this many 48 kHz samples.
        let maxSamples: Int
        private(set) var packets = 0
        private(set) var samples = 0

        init(maxPackets: Int, maxSamples: Int) {
            self.maxPackets = maxPackets
            self.maxSamples = maxSamples
        }

        /// Counts a packet of `samples` on the page; true when the page is now full and must be closed.
        mutating func add(samples: Int) -> Bool {
            packets += 1
            self.samples += samples
            return packets >= maxPackets || self.samples >= maxSamples
        }

        /// A new page begins (the last one was closed).
        mutating func reset() {
            packets = 0
            samples = 0
        }
    }

    /// The most recent packet, held back until the next `write` or `finish` so it can carry the end-of-stream flag.
    struct HeldPacket: Sendable {
        var data: [UInt8]
        /// The granule position at its end.
        var granule: Int64
        /// Its duration in 48 kHz samples.
        var samples: Int
    }
}
