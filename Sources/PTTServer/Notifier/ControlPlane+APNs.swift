import APNs
import Foundation
import NIOCore
import PTTCore
import PTTProtocol

/// Handing wakes and leaves to APNs: a bounded queue, a bounded number of requests in flight, no
/// requests while backing off, and the answers acted on (dead tokens removed, back-off on 429/5xx).
extension ControlPlane {
    /// Queues a push for APNs and starts sending.
    func queueAPNs(_ item: OutboxItem<PushFrame>, token: [UInt8]) {
        let job = OutboxItem(id: item.id, kind: item.kind, member: item.member, priority: item.priority, deadline: item.deadline,
                             burst: item.burst, payload: APNsJob(token: token, frame: item.payload))
        if let dropped = notifier.apnsOutbox.enqueue(job) {
            pushExpired(dropped, transport: .apns, reason: .overflow)
        }
        pumpAPNs()
    }

    /// Starts requests while fewer than `apnsConcurrency` are in flight. While backing off, waiting pushes
    /// expire at once: with zero expiry there is no later.
    func pumpAPNs() {
        guard let apns else {
            for item in notifier.apnsOutbox.removeAll() { pushExpired(item, transport: .apns, reason: .noRoute) }
            return
        }
        let now = clock.now()
        let wallNow = wallClock.now()
        if notifier.apnsBackoff.isBackingOff(now: wallNow) {
            for item in notifier.apnsOutbox.removeAll() { pushExpired(item, transport: .apns, reason: .backoff) }
            return
        }
        while notifier.apnsInFlight < configuration.wake.apnsConcurrency {
            let (next, expired) = notifier.apnsOutbox.next(now: now)
            for item in expired { pushExpired(item, transport: .apns, reason: .deadline) }
            guard let item = next else { break }
            // Only wakes and leaves go through APNs, both pushtotalk (priority 10, expiration 0).
            let notification: APNsNotification
            do {
                notification = try .pushToTalk(deviceToken: item.payload.token, payload: item.payload.frame.payload,
                                               apnsID: UUID(uuidString: item.payload.frame.id))
            } catch {
                recordPush(item.kind, member: item.member, transport: .apns, outcome: .failed, reason: "encoding", burst: item.burst)
                continue
            }
            notifier.apnsInFlight += 1
            apns.send(notification, on: eventLoop, now: wallNow).whenSuccess { [self] outcome in
                notifier.apnsInFlight -= 1
                apnsAnswered(item, outcome: outcome)
                pumpAPNs()
            }
        }
        armSweep()
    }

    /// Acts on APNs's answer to one push.
    private func apnsAnswered(_ item: OutboxItem<APNsJob>, outcome: APNsOutcome) {
        let wallNow = wallClock.now()
        switch outcome {
        case .sent:
            notifier.apnsBackoff.recordSuccess()
            recordPush(item.kind, member: item.member, transport: .apns, outcome: .sent, burst: item.burst)
        case .rejected(_, let reason):
            recordPush(item.kind, member: item.member, transport: .apns, outcome: .rejected, reason: Self.boundedReason(reason), burst: item.burst)
        case .failed(let reason):
            logger.notice("APNs unreachable", metadata: ["error": "\(reason)"])
            recordPush(item.kind, member: item.member, transport: .apns, outcome: .failed, reason: Self.failureCategory(reason), burst: item.burst)
        }
        switch outcome.action {
        case .removeToken:
            removeDeadToken(item.payload.token, of: item.member, reason: outcome)
        case .backOff:
            notifier.apnsBackoff.recordBackOff(now: wallNow)
            logger.warning("backing off APNs", metadata: ["until": "\(notifier.apnsBackoff.until.map(Self.iso8601) ?? "-")", "answer": "\(outcome)"])
        case .refreshProviderToken, .none:
            break
        }
    }

    /// An APNs reason as counted: APNs's reasons are short words (`Unregistered`, `TooManyRequests`); anything
    /// else is `other`, so the set of counters stays bounded whatever the server answers.
    static func boundedReason(_ reason: String) -> String {
        reason.utf8.count <= 40 && !reason.isEmpty && reason.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") } ? reason : "other"
    }

    /// A transport failure as counted (the whole error is logged).
    static func failureCategory(_ reason: String) -> String {
        let text = reason.lowercased()
        if text.contains("timeout") || text.contains("timed out") || text.contains("deadline") { return "timeout" }
        if text.contains("refused") { return "connection-refused" }
        if text.contains("tls") || text.contains("ssl") || text.contains("certificate") || text.contains("handshake") { return "tls" }
        return "transport"
    }

    /// APNs says a token is dead (410, or 400 BadDeviceToken): it is removed from its membership, unless the
    /// member registered another one meanwhile.
    private func removeDeadToken(_ token: [UInt8], of member: MemberID, reason: APNsOutcome) {
        guard var membership = directory.memberships[member], membership.pushToken == token else { return }
        membership.pushToken = nil
        do {
            try commit([.putMembership(membership)])
            logger.notice("removed a push token APNs refused", metadata: ["member": "\(member)", "answer": "\(reason)"])
        } catch {
            logger.error("could not remove a dead push token", metadata: ["member": "\(member)", "error": "\(error)"])
        }
    }
}
