internal import CSRTP

/// An SRTP failure: a libsrtp2 status (`srtp_err_status_t`) or a check made by this wrapper.
public enum SRTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The authentication tag did not verify: tampered packet, wrong key, or not SRTP at all
    /// (`srtp_err_status_auth_fail`).
    case authFail
    /// The packet index was already seen, or is older than the replay window
    /// (`srtp_err_status_replay_fail`, `srtp_err_status_replay_old`). On the sending side: the
    /// same sequence number was protected twice.
    case replayFail
    /// libsrtp rejected a parameter, e.g. a packet shorter than its header (`srtp_err_status_bad_param`).
    case badParam
    /// libsrtp could not allocate memory (`srtp_err_status_alloc_fail`).
    case allocFail
    /// No stream in the session matches the packet's SSRC: a session made for one specific SSRC
    /// saw another (`srtp_err_status_no_ctx`).
    case unknownSSRC
    /// Any other libsrtp status, by its numeric value.
    case other(Int)
    /// The master key + salt is not 30 bytes (16-byte AES-128 key + 14-byte salt).
    case badKeyLength(Int)
    /// The key text is not base64 of exactly 30 bytes.
    case badKeyEncoding
    /// The replay window size is outside 64 ..< 32768, the range libsrtp accepts.
    case badReplayWindow(Int)
    /// The buffer cannot hold the packet plus the tail room libsrtp may write into.
    case insufficientCapacity(needed: Int, available: Int)
    /// `protect` called on an inbound session or `unprotect` on an outbound one.
    case wrongDirection
    /// `srtp_init()` failed with this status; no session can be made in this process.
    case libraryInit(Int)

    /// Maps a libsrtp status (not `srtp_err_status_ok`) to an error.
    init(status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_auth_fail: self = .authFail
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: self = .replayFail
        case srtp_err_status_bad_param: self = .badParam
        case srtp_err_status_alloc_fail: self = .allocFail
        case srtp_err_status_no_ctx: self = .unknownSSRC
        default: self = .other(Int(status.rawValue))
        }
    }

    public var description: String {
        switch self {
        case .authFail: "SRTP authentication failed (tampered packet or wrong key)"
        case .replayFail: "SRTP replay check failed (packet index repeated or too old)"
        case .badParam: "SRTP bad parameter (malformed or too short packet)"
        case .allocFail: "SRTP allocation failed"
        case .unknownSSRC: "SRTP has no stream for this packet's SSRC"
        case let .other(code): "SRTP error (libsrtp status \(code))"
        case let .badKeyLength(length): "SRTP master key + salt must be 30 bytes, got \(length)"
        case .badKeyEncoding: "SRTP key is not base64 of 30 bytes"
        case let .badReplayWindow(size): "SRTP replay window must be 64 ..< 32768, got \(size)"
        case let .insufficientCapacity(needed, available):
            "SRTP buffer too small: \(needed) bytes needed (packet + trailer room), \(available) available"
        case .wrongDirection: "SRTP session used in the wrong direction"
        case let .libraryInit(code): "srtp_init() failed (libsrtp status \(code))"
        }
    }
}
