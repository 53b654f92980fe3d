import PTTCore
import PTTProtocol

extension Notifier {
    /// A private call rings a device whose app is not connected: one wake (`kind: private`, with the call) through
    /// `membership`'s route, the device's iOS channel, within the wake's usual deadline.
    func ringCall(_ call: CallInfo, through membership: Membership) {
        let frame = PushFrames.callRing(channel: membership.channel, call: call, sentAt: context.wallClock.now())
        handOver(
            OutboxItem(
                id: frame.id, kind: .wake, member: membership.id, priority: frame.priority,
                deadline: context.clock.now() + plane.configuration.wake.maxDelay, payload: frame),
            to: membership, via: wakeRoute(membership))
    }
}
