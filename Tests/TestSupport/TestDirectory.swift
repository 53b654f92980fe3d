import Foundation

/// Scratch directories for tests.
public enum TestDirectory {
    /// A new, empty directory under the system's temporary directory (`pttd-test-` and 12 random characters).
    /// Tests that keep something there remove it themselves; the rest goes with the machine's temporary files.
    public static func make() -> String {
        let path = NSTemporaryDirectory() + "pttd-test-" + UUID().uuidString.prefix(12)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
