import Foundation

/// How one APNs send ended.
public enum APNsOutcome: Sendable, Equatable, CustomStringConvertible {
    /// APNs accepted the notification (`200`); `apnsID` is the `apns-id` it answered with.
    case sent(apnsID: String?)
    /// APNs refused it: the HTTP status and the `reason` from the JSON body (`"HTTP <status>"` when the body has
    /// none). Status 0 is a local refusal, APNs was not contacted: `PayloadTooLarge` (over
    /// `APNsNotification.maximumPayloadSize`), `ProviderTokenUnavailable` (the token could not be signed) or
    /// `InvalidEndpoint` (no URL could be made from `apns.endpoint`).
    case rejected(status: Int, reason: String)
    /// No answer from APNs: connection refused, TLS failure, timeout, shutdown.
    case failed(reason: String)

    /// What the sender must do about this outcome.
    public var action: APNsAction {
        switch self {
        case .sent:
            return .none
        case .failed:
            return .backOff
        case .rejected(let status, let reason):
            switch (status, reason) {
            case (410, _), (400, "BadDeviceToken"): return .removeToken
            case (403, "ExpiredProviderToken"): return .refreshProviderToken
            case (429, _), (500, _), (503, _): return .backOff
            default: return .none
            }
        }
    }

    /// The outcome of an HTTP answer from APNs.
    static func answer(status: Int, body: [UInt8], apnsID: String?) -> APNsOutcome {
        if status == 200 { return .sent(apnsID: apnsID) }
        struct ErrorBody: Decodable { var reason: String }
        if let decoded = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)), !decoded.reason.isEmpty {
            return .rejected(status: status, reason: decoded.reason)
        }
        return .rejected(status: status, reason: "HTTP \(status)")
    }

    /// One line for logs, e.g. `rejected 410 Unregistered`.
    public var description: String {
        switch self {
        case .sent(let apnsID): "sent (apns-id \(apnsID ?? "none"))"
        case .rejected(let status, let reason): "rejected \(status) \(reason)"
        case .failed(let reason): "failed: \(reason)"
        }
    }
}

/// What the sender does after an `APNsOutcome`.
public enum APNsAction: Sendable, Equatable {
    /// Nothing: delivered, or refused for a reason retrying will not fix (e.g. `DeviceTokenNotForTopic`,
    /// `PayloadTooLarge`, `BadTopic`).
    case none
    /// The device token is dead (`410`, any reason, or `400 BadDeviceToken`): stop using it.
    case removeToken
    /// `403 ExpiredProviderToken`. `APNsClient` has already invalidated its token; the next send gets a new one
    /// (no sooner than 20 minutes after the current one was made).
    case refreshProviderToken
    /// APNs is overloaded or unreachable (`429`, `500`, `503`, transport failures): avoid it for a while
    /// (the notifier's `PushBackoff`).
    case backOff
}
