import APNs
import NIOCore
import TestSupport

extension APNsClient {
    /// ``APNsClient/requestTimeout`` times `TestTimeouts.scale`, for clients made by tests: under ThreadSanitizer, with
    /// the whole pass running, a TLS and HTTP/2 connect to the double took longer than 5 s, and the send failed
    /// (`deadlineExceeded`) before the double saw it.
    public static var testRequestTimeout: TimeAmount {
        .nanoseconds(Int64(Double(requestTimeout.nanoseconds) * TestTimeouts.scale))
    }
}
