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

extension Tools {
    /// The Python that can `import module`: `$PTT_PYTHON` (the Makefile sets it to the `python3` it installed the
    /// test tools for), else the first `python3` on PATH (or in /usr/bin) that can (`swift test` may put /usr/bin
    /// first). Nil if none.
    public static func python(importing module: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let chosen = environment["PTT_PYTHON"], !chosen.isEmpty { candidates.append(chosen) }
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/python3") {
            candidates.append(directory + "/python3")
        }
        var tried: Set<String> = []
        for candidate in candidates where tried.insert(candidate).inserted {
            if (try? ToolRun.runBlocking(candidate, ["-c", "import \(module)"]))?.status == 0 { return candidate }
        }
        return nil
    }
}
