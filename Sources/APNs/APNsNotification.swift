import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// One notification to send through APNs: the device token, the fields APNs takes as headers, and the JSON
/// body, already encoded by the caller.
public struct APNsNotification: Sendable, Equatable {
    /// The device's push token (for pushtotalk, the token the PushToTalk framework gave the app). Its length
    /// is whatever the device reported; it is not assumed to be 32 bytes.
    public var deviceToken: [UInt8]
    /// `apns-push-type`, e.g. `pushtotalk`.
    public var pushType: String
    /// `apns-priority`: 10 (immediately) or 5 (power-considerate).
    public var priority: Int
    /// `apns-expiration`: 0 delivers now or never; otherwise seconds since 1970 until which APNs stores and retries.
    public var expiration: Int64
    /// `apns-collapse-id`: stored notifications with the same id replace each other.
    public var collapseId: String?
    /// The JSON body.
    public var payload: Data
    /// `apns-id`: APNs makes one when nil and returns it either way.
    public var apnsID: UUID?

    /// A notification with every field given; `pushToTalk(deviceToken:payload:apnsID:)` fills them for a wake.
    public init(
        deviceToken: [UInt8], pushType: String, priority: Int, expiration: Int64, collapseId: String? = nil,
        payload: Data, apnsID: UUID? = nil
    ) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.payload = payload
        self.apnsID = apnsID
    }

    /// `pushtotalk`: the `apns-push-type` of notifications for the PushToTalk framework.
    public static let pushToTalkType = "pushtotalk"

    /// A pushtotalk notification as Apple requires it: priority 10, expiration 0 (never stored).
    ///
    /// - Parameter payload: the body, encoded as JSON with sorted keys and unescaped slashes. Apple wants its
    ///   `aps` to be an empty object; that is the caller's to get right.
    /// - Throws: what `JSONEncoder` throws for `payload`.
    public static func pushToTalk(
        deviceToken: [UInt8], payload: some Encodable, apnsID: UUID? = nil
    ) throws -> APNsNotification {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return APNsNotification(
            deviceToken: deviceToken, pushType: pushToTalkType, priority: 10, expiration: 0,
            payload: try encoder.encode(payload), apnsID: apnsID)
    }

    /// The largest body APNs accepts for VoIP-class (including pushtotalk) notifications. Larger ones are
    /// refused by `APNsClient` without contacting APNs, as `.rejected(status: 0, reason: "PayloadTooLarge")`.
    public static let maximumPayloadSize = 5120

    /// The device token as lowercase hex, as it appears in the request path.
    public var deviceTokenHex: String {
        String(
            decoding: deviceToken.flatMap { [Self.hexDigits[Int($0 >> 4)], Self.hexDigits[Int($0 & 0x0F)]] },
            as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The first 8 hex characters of the token: enough to tell tokens apart in logs without logging them.
    var tokenPrefix: String { String(deviceTokenHex.prefix(8)) }

    /// `/3/device/<lowercase hex token>`.
    var path: String { "/3/device/" + deviceTokenHex }

    /// The request headers, with the provider token `jwt` and the app's `topic` (`<bundleId>.voip-ptt`).
    func headers(jwt: String, topic: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "authorization", value: "bearer " + jwt)
        headers.add(name: "apns-push-type", value: pushType)
        headers.add(name: "apns-topic", value: topic)
        headers.add(name: "apns-priority", value: String(priority))
        headers.add(name: "apns-expiration", value: String(expiration))
        if let collapseId { headers.add(name: "apns-collapse-id", value: collapseId) }
        if let apnsID { headers.add(name: "apns-id", value: apnsID.uuidString.lowercased()) }
        headers.add(name: "content-type", value: "application/json")
        return headers
    }

    /// The `POST <baseURL>/3/device/<hex>` request.
    func request(baseURL: String, jwt: String, topic: String) throws -> HTTPClient.Request {
        try HTTPClient.Request(
            url: baseURL + path, method: .POST, headers: headers(jwt: jwt, topic: topic),
            body: .bytes(payload))
    }
}
