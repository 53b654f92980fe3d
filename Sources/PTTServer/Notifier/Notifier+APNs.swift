import APNs
import Foundation
import PTTCore
import PTTProtocol

/// Sending to APNs and acting on its answers: dead tokens removed, back-off on 429/5xx and transport failures.
extension Notifier {
    /// Sends one push the dispatcher handed over. Only wakes and leaves go through APNs, both pushtotalk
    /// (priority 10, expiration 0).
    func send(_ item: OutboxItem<PushDispatcher<PushFrame>.APNsJob>) {
        func failed(_ reason: String) {
            execute(
                dispatcher.apnsAnswered(
                    item, outcome: .failed, reason: reason, health: .unchanged, now: context.clock.now(),
                    wallNow: context.wallClock.now()))
        }
        // The dispatcher sends nothing to APNs unless it is configured.
        guard let apns = context.apns else { return failed(PushExpiry.noRoute.rawValue) }
        let notification: APNsNotification
        do {
            notification = try .pushToTalk(
                deviceToken: item.payload.token, payload: item.payload.payload.payload,
                apnsID: UUID(uuidString: item.payload.payload.id))
        } catch {
            return failed("encoding")
        }
        apns.send(notification, on: context.eventLoop, now: context.wallClock.now()).whenSuccess { [self] outcome in
            answered(item, outcome: outcome)
        }
    }

    /// Acts on APNs's answer to one push.
    private func answered(_ item: OutboxItem<PushDispatcher<PushFrame>.APNsJob>, outcome: APNsOutcome) {
        let counted: PushOutcome
        var reason: String?
        var health: PushDispatcher<PushFrame>.APNsHealth = outcome.action == .backOff ? .overloaded : .unchanged
        switch outcome {
        case .sent:
            counted = .sent
            health = .delivered
        case .rejected(_, let refusal):
            counted = .rejected
            reason = PushReason.bounded(refusal)
        case .failed(let failure):
            plane.logger.notice("APNs unreachable", metadata: ["error": "\(failure)"])
            counted = .failed
            reason = Self.failureCategory(failure)
        }
        let wasBackingOff = dispatcher.backoff.until
        execute(
            dispatcher.apnsAnswered(
                item, outcome: counted, reason: reason, health: health, now: context.clock.now(),
                wallNow: context.wallClock.now()))
        if let until = dispatcher.backoff.until, until != wasBackingOff {
            plane.logger.warning("backing off APNs", metadata: ["until": "\(until.iso8601)", "answer": "\(outcome)"])
        }
        if outcome.action == .removeToken { removeDeadToken(item.payload.token, of: item.member, reason: outcome) }
    }

    /// A transport failure as counted (the whole error is logged).
    static func failureCategory(_ reason: String) -> String {
        let text = reason.lowercased()
        if text.contains("timeout") || text.contains("timed out") || text.contains("deadline") { return "timeout" }
        if text.contains("refused") { return "connection-refused" }
        if text.contains("tls") || text.contains("ssl") || text.contains("certificate") || text.contains("handshake") {
            return "tls"
        }
        return "transport"
    }

    /// APNs says a token is dead (410, or 400 BadDeviceToken): it is removed from its membership, unless the member
    /// registered another one meanwhile.
    private func removeDeadToken(_ token: [UInt8], of member: MemberID, reason: APNsOutcome) {
        deadTokens[member] = token
        let settled = { [self] in if deadTokens[member] == token { deadTokens[member] = nil } }
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    guard var membership = directory.memberships[member], membership.pushToken == token else {
                        return .nothing(then: settled)
                    }
                    membership.pushToken = nil
                    directory.apply(.putMembership(membership))
                    return PlannedChange(
                        changes: [.putMembership(membership)],
                        stored: {
                            settled()
                            self.plane.logger.notice(
                                "removed a push token APNs refused",
                                metadata: ["member": "\(member)", "answer": "\(reason)"])
                        },
                        failed: { error in
                            settled()
                            self.plane.logger.error(
                                "could not remove a dead push token",
                                metadata: ["member": "\(member)", "error": "\(error)"])
                        })
                },
                refused: { error in
                    settled()
                    self.plane.logger.error(
                        "could not remove a dead push token", metadata: ["member": "\(member)", "error": "\(error)"])
                }))
    }
}
