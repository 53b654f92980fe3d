import Testing

/// Tests that load the machine (floods, thousands of connections, storms). They run one at a time, and
/// `make test` runs them in a second pass after every other test, so the load they make never
/// disturbs the timing of the relay and floor tests. Run alone: `swift test --filter PTTServerTests.Stress`.
@Suite("Stress: floods, churn and storms, one at a time", .serialized)
enum Stress {}
