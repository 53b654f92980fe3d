import APNs
import PTTCore

extension ControlPlane {
    /// What a reload does to the APNs transport.
    enum APNsChange {
        /// The credentials did not change: the client stays.
        case keep
        /// New credentials (a new client) or none any more (nil).
        case replace(APNsClient?)
    }

    /// A configuration reload, on the plane's loop, between two requests: what the plane reads at use (floor
    /// timers of the next grant, join rules, wake deadlines, recorded channels, media presence) follows the new
    /// configuration from the next request on; floors held now keep their timers until they go idle, and
    /// bursts running keep the wake deadlines they were given. Returns the APNs client replaced, for the caller
    /// to shut down once the requests it has in flight have had their time.
    func reconfigure(_ configuration: ServerConfiguration, apns: APNsChange) -> APNsClient? {
        eventLoop.preconditionInEventLoop()
        var replaced: APNsClient?
        context.configuration = configuration
        if case .replace(let client) = apns {
            replaced = context.apns
            context.apns = client
        }
        notifier.reconfigure()
        announcements.reconfigure()
        return replaced
    }
}
