import Foundation

/// Programs from the system (ffmpeg, tshark, opus-tools, openssl) that tests use as peers or oracles.
public enum Tools {
    /// The absolute path of `name` on PATH (or in /usr/bin, /usr/sbin), or nil.
    public static func path(_ name: String) -> String? {
        let directories =
            (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + [
                "/usr/bin", "/usr/sbin",
            ]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public static func have(_ names: String...) -> Bool { names.allSatisfy { path($0) != nil } }
}
