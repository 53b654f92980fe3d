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
}

extension Duration {
    /// This duration times `TestTimeouts.scale`.
    var scaled: Duration { self * TestTimeouts.scale }
}
