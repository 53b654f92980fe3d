extension ChannelHandle {
    /// Sends one Opus packet like ``send(opus:samples:)``, but waits while ``maximumQueuedPackets`` wait already
    /// instead of throwing: for audio that comes faster than real time (a file, a recording), which is then sent at
    /// the pace it plays at.
    public func transmit(opus: [UInt8], samples: Int = 960) async throws {
        while queuedPackets >= Self.maximumQueuedPackets {
            try await Task.sleep(for: .milliseconds(Int64(max(samples, 48) / 48)))
        }
        try send(opus: opus, samples: samples)
    }
}
