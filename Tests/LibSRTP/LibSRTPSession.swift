internal import CSRTP
public import SRTP

/// Debian's libsrtp2 (`srtp_t`) behind the same surface as ``SRTPSession``: the oracle the SRTP
/// tests check SRTPSession against, packet for packet. Test support only: libsrtp2 is linked to NSS
/// and costs milliseconds per session, so no product links it.
///
/// Suites: `AES_CM_128_HMAC_SHA1_80` (`srtp_crypto_policy_set_rtp_default` / `_rtcp_default`) or
/// `AEAD_AES_128_GCM` (`srtp_crypto_policy_set_aes_gcm_128_16_auth`) for both SRTP and SRTCP.
///
/// Thread safety: use a session from one thread at a time.
public final class LibSRTPSession: @unchecked Sendable {
    /// The way this session works.
    public let direction: Direction
    /// The SSRCs this session accepts.
    public let ssrc: SSRCSelection
    /// The replay window in packets (SRTP); SRTCP always uses libsrtp's fixed 128-packet window.
    public let replayWindowSize: Int
    /// The crypto suite.
    public let profile: SRTPProfile

    private let context: OpaquePointer

    /// Room `protect` needs after the packet: libsrtp documents that it may write up to
    /// `SRTP_MAX_TRAILER_LEN` (144) bytes.
    public static let rtpTrailerCapacity = Int(csrtp_max_trailer_len())

    /// Room `protectRTCP` needs after the packet: `SRTP_MAX_TRAILER_LEN + 4` (148) bytes.
    public static let rtcpTrailerCapacity = Int(csrtp_max_rtcp_trailer_len())

    /// Creates a session; the parameters mean what they mean for ``SRTPSession``.
    public init(
        direction: Direction,
        key: SRTPKey,
        ssrc: SSRCSelection,
        replayWindowSize: Int = SRTPSession.defaultReplayWindowSize,
        allowRepeatTransmit: Bool = false,
        profile: SRTPProfile = .aesCM128HMACSHA1_80
    ) throws(SRTPError) {
        try SRTPLibrary.ensureInitialised()
        guard Self.replayWindowSizes.contains(replayWindowSize) else { throw .badReplayWindow(replayWindowSize) }
        guard key.bytes.count == profile.keyLength else { throw .badKeyLength(key.bytes.count) }

        var policy = srtp_policy_t()
        switch profile {
        case .aesCM128HMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        switch ssrc {
        case let .specific(value):
            policy.ssrc.type = ssrc_specific
            policy.ssrc.value = value
        case .any:
            policy.ssrc.type = direction == .inbound ? ssrc_any_inbound : ssrc_any_outbound
        }
        policy.window_size = UInt(replayWindowSize)
        policy.allow_repeat_tx = allowRepeatTransmit ? 1 : 0
        policy.next = nil

        // libsrtp copies the key into the session during srtp_create.
        var keyBytes = key.bytes
        var created: OpaquePointer?
        let status = keyBytes.withUnsafeMutableBufferPointer { keyBuffer in
            policy.key = keyBuffer.baseAddress
            return srtp_create(&created, &policy)
        }
        for index in keyBytes.indices { keyBytes[index] = 0 }
        guard status == srtp_err_status_ok, let created else { throw SRTPError(libsrtpStatus: status) }

        self.context = created
        self.direction = direction
        self.ssrc = ssrc
        self.replayWindowSize = replayWindowSize
        self.profile = profile
    }

    deinit {
        srtp_dealloc(context)
    }

    /// libsrtp's `srtp_protect` in place; `capacity` must be at least `length +` ``rtpTrailerCapacity``.
    public func protect(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(SRTPError) -> Int {
        guard direction == .outbound else { throw .wrongDirection }
        try Self.checkCapacity(length: length, capacity: capacity, trailer: Self.rtpTrailerCapacity)
        var octets = Int32(length)
        let status = srtp_protect(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
        return Int(octets)
    }

    /// libsrtp's `srtp_unprotect` in place.
    public func unprotect(_ buffer: UnsafeMutableRawPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .inbound else { throw .wrongDirection }
        guard length >= 0, length <= Int(Int32.max) else { throw .badParam }
        var octets = Int32(length)
        let status = srtp_unprotect(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
        return Int(octets)
    }

    /// libsrtp's `srtp_protect_rtcp` in place; `capacity` must be at least `length +` ``rtcpTrailerCapacity``.
    public func protectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(SRTPError) -> Int {
        guard direction == .outbound else { throw .wrongDirection }
        try Self.checkCapacity(length: length, capacity: capacity, trailer: Self.rtcpTrailerCapacity)
        var octets = Int32(length)
        let status = srtp_protect_rtcp(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
        return Int(octets)
    }

    /// libsrtp's `srtp_unprotect_rtcp` in place.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .inbound else { throw .wrongDirection }
        guard length >= 0, length <= Int(Int32.max) else { throw .badParam }
        var octets = Int32(length)
        let status = srtp_unprotect_rtcp(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
        return Int(octets)
    }

    private static func checkCapacity(length: Int, capacity: Int, trailer: Int) throws(SRTPError) {
        guard length >= 0, length <= Int(Int32.max) - trailer else { throw .badParam }
        guard capacity >= length + trailer else {
            throw .insufficientCapacity(needed: length + trailer, available: capacity)
        }
    }
}
