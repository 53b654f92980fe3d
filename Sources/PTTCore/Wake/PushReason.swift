/// The one rule bounding the reason a push outcome is counted with, in the notifier's ledger (admin API) and in
/// `ptt_pushes_total`.
///
/// Reasons come from a closed set (``PushExpiry``) or from a peer (APNs's `reason`, a transport error): a short
/// plain reason is kept, anything else is counted as ``other``, so what a misbehaving peer answers cannot grow
/// the set of counters without bound.
public enum PushReason {
    /// What an unusual reason is counted as.
    public static let other = "other"
    /// The longest reason kept, in bytes.
    public static let maxLength = 40

    /// `reason` when it is empty (no reason) or at most ``maxLength`` ASCII letters, digits, spaces and
    /// hyphens; ``other`` otherwise.
    public static func bounded(_ reason: String) -> String {
        let plain =
            reason.utf8.count <= maxLength
            && reason.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == " ") }
        return plain ? reason : other
    }
}
