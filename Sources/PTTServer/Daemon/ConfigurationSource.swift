import Foundation

/// Where `pttd`'s configuration comes from, read at start and again at every reload (SIGHUP, `pttctl reload`):
/// built-in defaults, then the config file if there is one, then the command line's flags, which win.
public struct ConfigurationSource: Sendable {
    /// The config file to read, if any; asked at every read (a file created since the start is read).
    public var file: @Sendable () -> String?
    /// The command line's settings, applied over the file's; throws for a flag that makes no sense.
    public var overrides: @Sendable (inout ServerConfiguration) throws(ConfigurationError) -> Void

    public init(
        file: @escaping @Sendable () -> String?,
        overrides: @escaping @Sendable (inout ServerConfiguration) throws(ConfigurationError) -> Void = { _ in }
    ) {
        self.file = file
        self.overrides = overrides
    }

    /// A fixed file (or none) and no flags.
    public static func file(_ path: String?) -> ConfigurationSource { ConfigurationSource(file: { path }) }

    /// Reads and checks the whole configuration; the error names the file and the key.
    public func read() throws(ConfigurationError) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let path = file() { configuration = try ServerConfiguration.load(from: path) }
        try overrides(&configuration)
        try configuration.validate()
        return configuration
    }
}
