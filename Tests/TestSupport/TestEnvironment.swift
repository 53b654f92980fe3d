import Foundation

/// What the environment the tests run in asks of them: how much longer to wait, and which outside tools
/// there are.
public enum TestEnvironment {
    /// How much longer tests wait (and how much timing slack they allow) than in a plain debug build:
    /// `PTT_TEST_TIMEOUT_SCALE` when it is a number of at least 1 (`make test-sanitized` sets it; sanitized
    /// builds run 2–10× slower), else 1.
    public static let timeoutScale: Double = {
        guard let text = ProcessInfo.processInfo.environment["PTT_TEST_TIMEOUT_SCALE"], let value = Double(text), value >= 1 else { return 1 }
        return value
    }()

    /// The absolute path of the program `name` on PATH (or in /usr/bin, /usr/sbin), nil if there is none.
    public static func toolPath(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin", "/usr/sbin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
