import LibSRTP
import PortableSRTP
import SRTP

/// What every SRTP implementation under test offers: the `[UInt8]` forms of protect and unprotect.
protocol SRTPArraySession: AnyObject {
    func protect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8]
    func unprotect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8]
    func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8]
    func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8]
}

extension SRTPSession: SRTPArraySession {}
extension PortableSRTPSession: SRTPArraySession {}
extension LibSRTPSession: SRTPArraySession {}

/// The SRTP implementations the tests run the same checks against.
enum SRTPImplementation: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `SRTPSession`, on OpenSSL's libcrypto: what the server runs.
    case libcrypto
    /// `PortableSRTPSession`, on swift-crypto: what the kit runs.
    case portable
    /// `LibSRTPSession`, Debian's libsrtp2: the oracle.
    case libsrtp

    /// Ours, as opposed to the oracle.
    static let ours: [SRTPImplementation] = [.libcrypto, .portable]

    var description: String { rawValue }

    /// A session of this implementation. `allowRepeatTransmit` must be false for `portable`, which
    /// has no such option.
    func session(
        _ direction: SRTPDirection, key: SRTPKey, ssrc: SRTPSSRCSelection, profile: SRTPProfile,
        replayWindowSize: Int = 128, allowRepeatTransmit: Bool = false
    ) throws(SRTPError) -> any SRTPArraySession {
        switch self {
        case .libcrypto:
            try SRTPSession(
                direction: direction, key: key, ssrc: ssrc, replayWindowSize: replayWindowSize,
                allowRepeatTransmit: allowRepeatTransmit, profile: profile)
        case .portable:
            try Self.portable(direction, key: key, ssrc: ssrc, profile: profile, replayWindowSize, allowRepeatTransmit)
        case .libsrtp:
            try LibSRTPSession(
                direction: direction, key: key, ssrc: ssrc, replayWindowSize: replayWindowSize,
                allowRepeatTransmit: allowRepeatTransmit, profile: profile)
        }
    }

    private static func portable(
        _ direction: SRTPDirection, key: SRTPKey, ssrc: SRTPSSRCSelection, profile: SRTPProfile,
        _ replayWindowSize: Int, _ allowRepeatTransmit: Bool
    ) throws(SRTPError) -> PortableSRTPSession {
        precondition(!allowRepeatTransmit, "PortableSRTPSession never protects an index twice")
        return try PortableSRTPSession(
            direction: direction, key: key, ssrc: ssrc, replayWindowSize: replayWindowSize, profile: profile)
    }
}
