import Logging
import Synchronization

/// The level of every log handler `pttd` makes, one for the whole process, so that a reload (`logLevel`) changes
/// what every logger already made writes.
public final class LogLevelControl: Sendable {
    private let level: Atomic<Int>

    public init(_ level: Logger.Level) { self.level = Atomic(Self.index(level)) }

    public var current: Logger.Level {
        get { Logger.Level.allCases[level.load(ordering: .relaxed)] }
        set { level.store(Self.index(newValue), ordering: .relaxed) }
    }

    private static func index(_ level: Logger.Level) -> Int { Logger.Level.allCases.firstIndex(of: level) ?? 2 }
}

/// A log handler whose level is the process's ``LogLevelControl``: setting a logger's level sets it for all.
public struct ControlledLevelLogHandler<Handler: LogHandler>: LogHandler {
    var handler: Handler
    let control: LogLevelControl

    public init(_ handler: Handler, control: LogLevelControl) {
        self.handler = handler
        self.control = control
    }

    public var logLevel: Logger.Level {
        get { control.current }
        set { control.current = newValue }
    }

    public var metadata: Logger.Metadata {
        get { handler.metadata }
        set { handler.metadata = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { handler[metadataKey: key] }
        set { handler[metadataKey: key] = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { handler.metadataProvider }
        set { handler.metadataProvider = newValue }
    }

    public func log(event: LogEvent) {
        handler.log(event: event)
    }
}
