import Foundation

/// How much longer tests wait (and how much timing slack they allow) than in a plain debug build.
///
/// `make test-sanitized` sets `PTT_TEST_TIMEOUT_SCALE` (sanitized builds run 2–10× slower); unset, it is 1
/// and every wait is what the test says.
public enum TestTimeouts {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["PTT_TEST_TIMEOUT_SCALE"], let value = Double(text),
            value >= 1
        else { return 1 }
        return value
    }()

    /// How long a test waits by default for something the server does at once (an answer, an event, a
    /// close). Generous on purpose: it bounds a failure, it measures nothing. Every test of the first pass
    /// starts at once on 2 cores, and for the first seconds Swift's cooperative pool (one thread per core)
    /// is busy with the CPU-heavy tests, so a wait of 5 s once expired before the task that would have seen
    /// the event could run (CI, a close seen after 5 s that the server made in milliseconds).
    public static let eventWait = Duration.seconds(20)

    /// The `--seconds` (or `duration:`) to give a helper process that ends by itself after `seconds`: scaled, as a
    /// whole number. A process that stops at a fixed time is outrun by a slow run's scaled waits (a sanitized pass
    /// once saw `ptt listen` leave its channel while the test still waited for it to join).
    public static func lifetime(_ seconds: Int) -> String {
        "\(Int((Double(seconds) * scale).rounded(.up)))"
    }
}

extension Duration {
    /// This duration times `TestTimeouts.scale`.
    public var scaled: Duration { self * TestTimeouts.scale }
}

/// Waits until `condition` holds, checking every `interval`; throws with `what` after `timeout`. The default,
/// ``TestTimeouts/eventWait``, is scaled (it only bounds a failure); a timeout given is used as given (callers scale
/// it where they mean to). Under ThreadSanitizer a daemon once took over the unscaled 20 s to listen.
public func eventually(
    _ what: String, timeout: Duration = TestTimeouts.eventWait.scaled, interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    if try await condition() { return }
    throw TestFailure("timed out after \(timeout) waiting for \(what)")
}
