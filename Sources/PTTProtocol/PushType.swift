/// The kind of notification a `push` frame (or an APNs request's `apns-push-type`) carries.
public enum PushType: WireValue {
    /// `pushtotalk`: wakes and leaves.
    case pushToTalk
    /// `alert`: announcements.
    case alert
    /// A value from a newer server.
    case unknown(String)

    public static let known: [PushType] = [.pushToTalk, .alert]

    public var rawValue: String {
        switch self {
        case .pushToTalk: "pushtotalk"
        case .alert: "alert"
        case .unknown(let value): value
        }
    }
}
