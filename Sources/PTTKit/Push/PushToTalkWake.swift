import Foundation
import PTTProtocol

/// A `pushtotalk` push, whichever way it came: over APNs (the app's `incomingPushResult(channelManager:channelUUID:
/// pushPayload:)`) or over the Local Push connection (``PushProviderSession/wakes``). Both carry the same payload,
/// so both give the app this one type.
///
/// Answer the PushToTalk framework from ``action``: `.activeRemoteParticipant(PTParticipant(name: name, image:
/// nil))` for ``Action/activeRemoteParticipant(name:)``, `.leaveChannel` for ``Action/leaveChannel(reason:)``.
public struct PushToTalkWake: Sendable, Equatable {
    /// What the app does with the wake.
    public enum Action: Sendable, Equatable {
        /// `name` started talking: show them as the active remote participant and connect to hear the burst.
        case activeRemoteParticipant(name: String)
        /// The membership ended (`kicked`, `channel-deleted`, `user-removed`): leave the channel.
        case leaveChannel(reason: LeaveReason)
    }

    /// The channel's UUID, lowercase: the PushToTalk framework's `channelUUID`.
    public var channel: String
    /// What to do.
    public var action: Action
    /// The talk burst a speaker wake belongs to (one wake per member per burst).
    public var burst: String?
    /// When the server made the push (milliseconds since 1970).
    public var sentAt: Int64
    /// 0: now or never. Wakes are never stored, so this is always 0 from pttd.
    public var expiration: Int64
    /// The Local Push frame's id (nil for APNs).
    public var pushID: String?
    /// The payload as it came: what a Local Push extension passes to `reportPushToTalkMessage(userInfo:)`.
    public var payload: PushPayload

    /// Reads a pushtotalk payload; throws ``PushToTalkWakeError/notAWake`` for one that is neither a speaker wake
    /// nor a leave (an announcement).
    public init(payload: PushPayload, expiration: Int64 = 0, pushID: String? = nil) throws(PushToTalkWakeError) {
        if payload.leaveChannel == true {
            action = .leaveChannel(reason: payload.reason ?? .left)
        } else if let speaker = payload.activeSpeaker {
            action = .activeRemoteParticipant(name: speaker)
        } else {
            throw .notAWake
        }
        channel = payload.channel
        burst = payload.burst
        sentAt = payload.sentAt
        self.expiration = expiration
        self.pushID = pushID
        self.payload = payload
    }

    /// Reads the JSON body of an APNs `pushtotalk` push.
    public init(apnsPayload data: Data) throws(PushToTalkWakeError) {
        let payload: PushPayload
        do { payload = try JSONDecoder().decode(PushPayload.self, from: data) } catch {
            throw .unreadable("\(error)")
        }
        try self.init(payload: payload)
    }

    /// Reads the `pushPayload` dictionary the PushToTalk framework hands to `incomingPushResult`.
    public init(userInfo: [AnyHashable: Any]) throws(PushToTalkWakeError) {
        var strings: [String: Any] = [:]
        for (key, value) in userInfo { if let key = key as? String { strings[key] = value } }
        guard JSONSerialization.isValidJSONObject(strings),
            let data = try? JSONSerialization.data(withJSONObject: strings)
        else { throw .unreadable("the payload is not a JSON object") }
        try self.init(apnsPayload: data)
    }

    /// The payload as a dictionary, as APNs would have delivered it: for `reportPushToTalkMessage(userInfo:)`.
    public var userInfo: [String: Any] {
        guard let data = try? JSONEncoder().encode(payload),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    /// The channel's UUID.
    public var channelUUID: UUID? { UUID(uuidString: channel) }

    /// Whether the wake is older than `maximumAge` at `now`: a push can arrive seconds late, and a speaker wake for
    /// a burst that must have ended is better dropped. Leaves are never stale.
    public func isStale(now: Date = Date(), maximumAge: Duration = .seconds(30)) -> Bool {
        guard case .activeRemoteParticipant = action else { return false }
        let ageMs = Int64(now.timeIntervalSince1970 * 1000) - sentAt
        let (seconds, attoseconds) = maximumAge.components
        return ageMs > seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// Why a push is not a ``PushToTalkWake``.
public enum PushToTalkWakeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON, or not the payload pttd sends.
    case unreadable(String)
    /// A push of another kind (an announcement): neither a speaker nor a leave.
    case notAWake

    public var description: String {
        switch self {
        case .unreadable(let reason): "not a pushtotalk payload: \(reason)"
        case .notAWake: "a push that is neither a speaker wake nor a leave"
        }
    }
}
