internal import CSRTP

/// One libsrtp2 session (`srtp_t`) with suite `AES_CM_128_HMAC_SHA1_80` for both SRTP and SRTCP
/// (`srtp_crypto_policy_set_rtp_default` / `_rtcp_default`), one master key, and replay protection.
///
/// A session works one way (``Direction``). Packets are processed in place in the caller's buffer;
/// `protect`/`unprotect` do not allocate (except that an ``SSRCSelection/any`` session allocates a
/// stream the first time it sees an SSRC).
///
/// For a relay: make one outbound session per listener, keyed with that listener's key, for the
/// listener's stable outgoing SSRC (``SSRCSelection/specific(_:)``), and protect the munged packets
/// (continuous sequence numbers, so libsrtp's rollover counter follows); make one inbound session
/// per speaker connection with that client's key. libsrtp also checks the sending side: protecting
/// two packets with the same sequence number in one session fails with `replayFail` unless
/// `allowRepeatTransmit`.
///
/// Thread safety: libsrtp sessions are not thread-safe. Use a session from one thread (one event
/// loop) at a time. It is marked `@unchecked Sendable` so it can be handed to that event loop.
public final class SRTPSession: @unchecked Sendable {
    /// The way this session works.
    public let direction: Direction
    /// The SSRCs this session accepts.
    public let ssrc: SSRCSelection
    /// The replay window in packets (SRTP); SRTCP always uses libsrtp's fixed 128-packet window.
    public let replayWindowSize: Int

    private let context: OpaquePointer

    /// Room `protect` needs after the packet: libsrtp documents that it may write up to
    /// `SRTP_MAX_TRAILER_LEN` (144) bytes; this suite adds ``rtpOverhead`` (10).
    public static let rtpTrailerCapacity = Int(csrtp_max_trailer_len())

    /// Room `protectRTCP` needs after the packet: `SRTP_MAX_TRAILER_LEN + 4` (148) bytes; this
    /// suite adds ``rtcpOverhead`` (14).
    public static let rtcpTrailerCapacity = Int(csrtp_max_rtcp_trailer_len())

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - direction: `inbound` to unprotect, `outbound` to protect.
    ///   - key: master key and salt.
    ///   - ssrc: one SSRC, or any.
    ///   - replayWindowSize: SRTP replay window in packets, 64 ..< 32768 (default 128).
    ///   - allowRepeatTransmit: outbound only: allow protecting the same sequence number again
    ///     (retransmissions; the payload must be identical or keystream is reused).
    public init(
        direction: Direction,
        key: SRTPKey,
        ssrc: SSRCSelection,
        replayWindowSize: Int = SRTPSession.defaultReplayWindowSize,
        allowRepeatTransmit: Bool = false
    ) throws(SRTPError) {
        try SRTPLibrary.ensureInitialised()
        guard Self.replayWindowSizes.contains(replayWindowSize) else { throw .badReplayWindow(replayWindowSize) }

        var policy = srtp_policy_t()
        srtp_crypto_policy_set_rtp_default(&policy.rtp)
        srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
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
        guard status == srtp_err_status_ok, let created else { throw SRTPError(status: status) }

        self.context = created
        self.direction = direction
        self.ssrc = ssrc
        self.replayWindowSize = replayWindowSize
    }

    /// Creates a session from 30 raw key bytes; throws `badKeyLength` for any other length.
    public convenience init(
        direction: Direction,
        key: [UInt8],
        ssrc: SSRCSelection,
        replayWindowSize: Int = SRTPSession.defaultReplayWindowSize,
        allowRepeatTransmit: Bool = false
    ) throws(SRTPError) {
        try self.init(
            direction: direction, key: SRTPKey(bytes: key), ssrc: ssrc,
            replayWindowSize: replayWindowSize, allowRepeatTransmit: allowRepeatTransmit
        )
    }

    deinit {
        srtp_dealloc(context)
    }

    /// Encrypts and authenticates the RTP packet of `length` bytes at `buffer` in place, appending
    /// the 10-byte tag; returns the new length (`length + 10`). `capacity` (the bytes writable at
    /// `buffer`) must be at least `length +` ``rtpTrailerCapacity``, as libsrtp requires. Does not
    /// allocate (for a ``SSRCSelection/specific(_:)`` session).
    public func protect(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(SRTPError) -> Int {
        guard direction == .outbound else { throw .wrongDirection }
        try Self.checkCapacity(length: length, capacity: capacity, trailer: Self.rtpTrailerCapacity)
        var octets = Int32(length)
        let status = srtp_protect(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(status: status) }
        return Int(octets)
    }

    /// Verifies and decrypts the SRTP packet of `length` bytes at `buffer` in place; returns the
    /// RTP packet's length (`length - 10`). Fails with `authFail` for a bad tag and `replayFail`
    /// for a repeated or too old packet; on failure the buffer content is unspecified. Does not
    /// allocate (except a new stream in an ``SSRCSelection/any`` session).
    public func unprotect(_ buffer: UnsafeMutableRawPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .inbound else { throw .wrongDirection }
        guard length >= 0, length <= Int(Int32.max) else { throw .badParam }
        var octets = Int32(length)
        let status = srtp_unprotect(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(status: status) }
        return Int(octets)
    }

    /// Encrypts and authenticates the (compound) RTCP packet of `length` bytes at `buffer` in
    /// place, appending the SRTCP index and tag; returns the new length (`length + 14`).
    /// `capacity` must be at least `length +` ``rtcpTrailerCapacity``.
    public func protectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(SRTPError) -> Int {
        guard direction == .outbound else { throw .wrongDirection }
        try Self.checkCapacity(length: length, capacity: capacity, trailer: Self.rtcpTrailerCapacity)
        var octets = Int32(length)
        let status = srtp_protect_rtcp(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(status: status) }
        return Int(octets)
    }

    /// Verifies and decrypts the SRTCP packet of `length` bytes at `buffer` in place; returns the
    /// RTCP length (`length - 14`).
    public func unprotectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .inbound else { throw .wrongDirection }
        guard length >= 0, length <= Int(Int32.max) else { throw .badParam }
        var octets = Int32(length)
        let status = srtp_unprotect_rtcp(context, buffer, &octets)
        guard status == srtp_err_status_ok else { throw SRTPError(status: status) }
        return Int(octets)
    }

    private static func checkCapacity(length: Int, capacity: Int, trailer: Int) throws(SRTPError) {
        guard length >= 0, length <= Int(Int32.max) - trailer else { throw .badParam }
        guard capacity >= length + trailer else {
            throw .insufficientCapacity(needed: length + trailer, available: capacity)
        }
    }
}
