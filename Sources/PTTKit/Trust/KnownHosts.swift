import Foundation

/// Trust on first use for server certificates, like ssh's `known_hosts`: the first time a client
/// connects to `host:port` it records the certificate's SHA-256 fingerprint; later connections must show
/// the same certificate.
///
/// The file holds one `host:port fingerprint` per line.
public struct KnownHosts: TrustStore {
    public let path: String

    public init(path: String) { self.path = path }

    /// `$PTT_HOME/known_hosts`, where `PTT_HOME` defaults to `~/.ptt`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let home =
            environment["PTT_HOME"]
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".ptt")
        return (home as NSString).appendingPathComponent("known_hosts")
    }

    /// Checks `fingerprint` for `endpoint`, recording it if the endpoint is new.
    public func verdict(for endpoint: String, fingerprint: String) throws -> TrustVerdict {
        if let known = try entries()[endpoint] {
            return known == fingerprint ? .trusted : .changed(expected: known)
        }
        try append(endpoint, fingerprint)
        return .pinnedNow
    }

    /// The file's path.
    public var location: String { path }

    func entries() throws -> [String: String] {
        // No file yet: nothing pinned. A file that cannot be read or is not text is an error: treating it as empty
        // would pin a server again with whatever certificate it shows.
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw KnownHostsError.unreadable(path: path, reason: "\(error)")
        }
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2 { result[String(fields[0])] = String(fields[1]) }
        }
        return result
    }

    private func append(_ endpoint: String, _ fingerprint: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let line = Data("\(endpoint) \(fingerprint)\n".utf8)
        if let handle = FileHandle(forWritingAtPath: path) {
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: line)
        } else {
            guard FileManager.default.createFile(atPath: path, contents: line, attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
    }
}

/// A known-hosts file that exists but cannot be used.
public enum KnownHostsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read, or is not UTF-8 text.
    case unreadable(path: String, reason: String)
    /// A newly trusted server could not be written to the file.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read the known hosts file \(path) (\(reason)); fix or remove it to pin servers again"
        case .unwritable(let path, let reason):
            "cannot write the known hosts file \(path) (\(reason))"
        }
    }
}
