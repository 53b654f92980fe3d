internal import CSRTP
import SRTP

/// Process-wide libsrtp initialisation: `srtp_init()` runs exactly once, on first use, from
/// whichever thread gets there first (a `static let` initialiser is run once, thread-safely).
/// libsrtp is never shut down: sessions may live until exit.
enum SRTPLibrary {
    private static let initStatus: UInt32 = srtp_init().rawValue

    /// Initialises libsrtp if needed; throws if that failed.
    static func ensureInitialised() throws(SRTPError) {
        let status = initStatus
        guard status == srtp_err_status_ok.rawValue else { throw .cryptoFailure("srtp_init: status \(status)") }
    }
}

extension SRTPError {
    /// Maps a libsrtp status (not `srtp_err_status_ok`) to the error SRTPSession gives for the same case.
    init(libsrtpStatus status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_auth_fail: self = .authFail
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: self = .replayFail
        case srtp_err_status_bad_param: self = .badParam
        case srtp_err_status_no_ctx: self = .unknownSSRC
        default: self = .cryptoFailure("libsrtp status \(status.rawValue)")
        }
    }
}
