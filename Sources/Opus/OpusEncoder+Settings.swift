internal import COpus

/// Encoder settings. Reads are plain properties; writes are throwing methods,
/// because libopus rejects out-of-range values and a silent setter would hide that.
extension OpusEncoder {
    /// The bitrate the encoder is using, in bits per second (resolved, even when set to `.auto`).
    public var bitrate: Int32 {
        get32(copus_encoder_get_bitrate)
    }

    /// Sets the target bitrate.
    /// - Throws: `badArgument` for non-positive values other than `.auto` / `.max`.
    public func setBitrate(_ bitrate: Bitrate) throws(OpusError) {
        _ = try OpusError.check(copus_encoder_set_bitrate(state, bitrate.opusValue), "bitrate \(bitrate)")
    }

    /// Computational complexity, 0 (cheapest) to 10 (best quality).
    public var complexity: Int {
        Int(get32(copus_encoder_get_complexity))
    }

    /// Sets complexity.
    /// - Throws: `badArgument` outside 0...10.
    public func setComplexity(_ complexity: Int) throws(OpusError) {
        guard (0...10).contains(complexity) else {
            throw OpusError(code: OPUS_BAD_ARG, context: "complexity \(complexity); must be 0...10")
        }
        _ = try OpusError.check(copus_encoder_set_complexity(state, Int32(complexity)), "complexity \(complexity)")
    }

    /// Whether discontinuous transmission is on: during silence the encoder emits
    /// 1–2 byte packets (which need not be sent) instead of coded frames.
    public var dtx: Bool {
        get32(copus_encoder_get_dtx) != 0
    }

    /// Turns discontinuous transmission on or off.
    public func setDTX(_ enabled: Bool) throws(OpusError) {
        _ = try OpusError.check(copus_encoder_set_dtx(state, enabled ? 1 : 0), "dtx \(enabled)")
    }

    /// Whether in-band forward error correction is on (SILK modes only): each packet
    /// carries a low-bitrate copy of the previous frame for `OpusDecoder.decodeFEC`.
    public var inbandFEC: Bool {
        get32(copus_encoder_get_inband_fec) != 0
    }

    /// Turns in-band FEC on or off. FEC is only emitted when `packetLossPercent` is above 0.
    public func setInbandFEC(_ enabled: Bool) throws(OpusError) {
        _ = try OpusError.check(copus_encoder_set_inband_fec(state, enabled ? 1 : 0), "inband FEC \(enabled)")
    }

    /// Expected packet loss, in percent (0...100); higher values make the encoder more robust.
    public var packetLossPercent: Int {
        Int(get32(copus_encoder_get_packet_loss_perc))
    }

    /// Sets the expected packet loss.
    /// - Throws: `badArgument` outside 0...100.
    public func setPacketLossPercent(_ percent: Int) throws(OpusError) {
        guard (0...100).contains(percent) else {
            throw OpusError(code: OPUS_BAD_ARG, context: "packet loss \(percent)%; must be 0...100")
        }
        _ = try OpusError.check(copus_encoder_set_packet_loss_perc(state, Int32(percent)), "packet loss \(percent)%")
    }

    /// Hints what kind of audio is being encoded.
    public func setSignal(_ signal: Signal) throws(OpusError) {
        _ = try OpusError.check(copus_encoder_set_signal(state, signal.opusValue), "signal \(signal)")
    }

    /// Calls a libopus GET ctl; these cannot fail on a live encoder.
    private func get32(_ ctl: (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32) -> Int32 {
        var value: Int32 = 0
        _ = ctl(state, &value)
        return value
    }
}
