internal import COpus

/// The audio bandwidth an Opus packet was coded with (RFC 6716 §2).
public enum OpusBandwidth: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 4 kHz passband, 8 kHz effective sample rate.
    case narrowband
    /// 6 kHz passband, 12 kHz effective sample rate.
    case mediumband
    /// 8 kHz passband, 16 kHz effective sample rate.
    case wideband
    /// 12 kHz passband, 24 kHz effective sample rate.
    case superwideband
    /// 20 kHz passband, 48 kHz effective sample rate.
    case fullband

    /// The audio passband in hertz.
    public var passbandHz: Int {
        switch self {
        case .narrowband: 4_000
        case .mediumband: 6_000
        case .wideband: 8_000
        case .superwideband: 12_000
        case .fullband: 20_000
        }
    }

    public var description: String {
        switch self {
        case .narrowband: "narrowband"
        case .mediumband: "mediumband"
        case .wideband: "wideband"
        case .superwideband: "superwideband"
        case .fullband: "fullband"
        }
    }

    /// Maps an `OPUS_BANDWIDTH_*` value; nil for anything else.
    init?(opusValue: Int32) {
        switch opusValue {
        case OPUS_BANDWIDTH_NARROWBAND: self = .narrowband
        case OPUS_BANDWIDTH_MEDIUMBAND: self = .mediumband
        case OPUS_BANDWIDTH_WIDEBAND: self = .wideband
        case OPUS_BANDWIDTH_SUPERWIDEBAND: self = .superwideband
        case OPUS_BANDWIDTH_FULLBAND: self = .fullband
        default: return nil
        }
    }
}
