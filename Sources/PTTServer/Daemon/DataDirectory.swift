import Foundation

/// The files `pttd` keeps in its data directory (`--data`, default `./.pttd`).
public struct DataDirectory: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public var database: String { file("pttd.sqlite") }
    public var certificate: String { file("tls-cert.pem") }
    public var privateKey: String { file("tls-key.pem") }
    public var adminToken: String { file("admin-token") }
    /// Written at every start with the addresses actually bound, for `pttctl` and scripts.
    public var runtimeInfo: String { file("runtime.json") }
    public var config: String { file("config.json") }
    /// Recorded bursts, one folder per channel.
    public var recordings: String { file("recordings") }

    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Creates the directory (mode 0700) if missing.
    public func create() throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes a file atomically, readable by its owner only.
    public func writePrivate(_ data: Data, to file: String) throws {
        let tmp = file + ".tmp"
        FileManager.default.createFile(atPath: tmp, contents: data, attributes: [.posixPermissions: 0o600])
        guard FileManager.default.fileExists(atPath: tmp) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: tmp])
        }
        if rename(tmp, file) != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
