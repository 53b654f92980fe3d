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
        // Bytes, not Characters: it runs for every member a burst could not wake, and a Character's properties
        // cost a Unicode lookup each.
        let plain = reason.utf8.count <= maxLength && reason.utf8.allSatisfy(isPlain)
        return plain ? reason : other
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: " "):
            true
        default: false
        }
    }
}
