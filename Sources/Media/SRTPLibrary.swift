internal import CSRTP

/// Process-wide libsrtp initialisation: `srtp_init()` runs exactly once, on first use, from
/// whichever thread gets there first (a `static let` initialiser is run once, thread-safely).
/// libsrtp is never shut down: sessions may live until exit.
enum SRTPLibrary {
    private static let initStatus: UInt32 = srtp_init().rawValue

    /// Initialises libsrtp if needed; throws if that failed.
    static func ensureInitialised() throws(SRTPError) {
        let status = initStatus
        guard status == srtp_err_status_ok.rawValue else { throw .libraryInit(Int(status)) }
    }
}
