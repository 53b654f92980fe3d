internal import COpus

extension OpusEncoder {
    /// The coding mode an encoder is created with (`OPUS_APPLICATION_*`).
    public enum Application: Sendable, Hashable {
        /// Best quality for speech at a given bitrate (`OPUS_APPLICATION_VOIP`).
        case voip
        /// Best fidelity for non-speech and mixed content (`OPUS_APPLICATION_AUDIO`).
        case audio
        /// Lowest latency: CELT only, no speech modes (`OPUS_APPLICATION_RESTRICTED_LOWDELAY`).
        case lowDelay

        var opusValue: Int32 {
            switch self {
            case .voip: OPUS_APPLICATION_VOIP
            case .audio: OPUS_APPLICATION_AUDIO
            case .lowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
            }
        }
    }

    /// A bitrate request for `OpusEncoder.setBitrate(_:)`. An integer literal means bits per second.
    public enum Bitrate: Sendable, Hashable, ExpressibleByIntegerLiteral {
        /// Let libopus pick from sample rate and channels (the default).
        case auto
        /// As many bits as the packet size allows.
        case max
        /// A target in bits per second; libopus accepts 500 and up and clamps high values.
        case bitsPerSecond(Int32)

        public init(integerLiteral value: Int32) {
            self = .bitsPerSecond(value)
        }

        var opusValue: Int32 {
            switch self {
            case .auto: OPUS_AUTO
            case .max: OPUS_BITRATE_MAX
            case .bitsPerSecond(let value): value
            }
        }
    }

    /// What kind of audio the encoder should assume when choosing modes.
    public enum Signal: Sendable, Hashable {
        /// Let libopus detect it (the default).
        case auto
        /// Bias towards speech (SILK/hybrid) modes.
        case voice
        /// Bias towards music (CELT) modes.
        case music

        var opusValue: Int32 {
            switch self {
            case .auto: OPUS_AUTO
            case .voice: OPUS_SIGNAL_VOICE
            case .music: OPUS_SIGNAL_MUSIC
            }
        }
    }
}
