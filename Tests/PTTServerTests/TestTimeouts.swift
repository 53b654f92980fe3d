import Foundation

/// How much longer tests wait (and how much timing slack they allow) than in a plain debug build.
///
/// `make test-sanitized` sets `PTT_TEST_TIMEOUT_SCALE` (sanitized builds run 2–10× slower); unset, it is 1
/// and every wait is what the test says.
enum TestTimeouts {
    static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["PTT_TEST_TIMEOUT_SCALE"], let value = Double(text), value >= 1 else { return 1 }
        return value
    }()

    /// How long a test waits by default for something the server does at once (an answer, an event, a
    /// close). Generous on purpose: it bounds a failure, it measures nothing. Every test of the first pass
    /// starts at once on 2 cores, and for the first seconds Swift's cooperative pool (one thread per core)
    /// is busy with the CPU-heavy tests, so a wait of 5 s once expired before the task that would have seen
    /// the event could run (CI, a close seen after 5 s that the server made in milliseconds).
    static let eventWait = Duration.seconds(20)
}

extension Duration {
    /// This duration times `TestTimeouts.scale`.
    var scaled: Duration { self * TestTimeouts.scale }
}
