import Foundation
import Logging
import Synchronization

/// Writes each log record as one line of JSON (`--log-format json`), for log shippers (journald with a JSON
/// parser, Vector, Fluent Bit, Loki's promtail):
///
///     {"time":"2026-11-24T02:30:00.123Z","level":"info","label":"pttd","message":"session started","user":"jane",...}
///
/// `time` (ISO 8601, UTC, milliseconds), `level`, `label` and `message` come first; every metadata field follows
/// as a string at the top level, except one named like those four, which is written as `meta.NAME`. Lines are
/// written whole with one `write(2)`, so lines from several threads never interleave.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: Output

    /// Where lines go: a file descriptor (standard error by default).
    public final class Output: Sendable {
        let descriptor: Int32
        private let lock = Mutex(())
        public init(descriptor: Int32 = STDERR_FILENO) { self.descriptor = descriptor }

        func write(_ line: [UInt8]) {
            lock.withLock { _ in
                line.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                        if written <= 0 { return }
                        offset += written
                    }
                }
            }
        }
    }

    public init(label: String, output: Output = Output()) {
        self.label = label
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        output.write(Self.line(time: Date(), level: event.level, label: label, message: "\(event.message)", merged))
    }

    static let reserved: Set<String> = ["time", "level", "label", "message"]

    /// One record as a line of JSON, ending in a newline.
    static func line(
        time: Date, level: Logger.Level, label: String, message: String, _ metadata: Logger.Metadata
    ) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(160 + message.utf8.count)
        line.append(UInt8(ascii: "{"))
        append("time", time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), to: &line)
        append("level", level.rawValue, to: &line)
        append("label", label, to: &line)
        append("message", message, to: &line)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            append(reserved.contains(key) ? "meta." + key : key, "\(value)", to: &line)
        }
        line[line.count - 1] = UInt8(ascii: "}")  // the last field's comma
        line.append(UInt8(ascii: "\n"))
        return line
    }

    private static func append(_ key: String, _ value: String, to line: inout [UInt8]) {
        appendString(key, to: &line)
        line.append(UInt8(ascii: ":"))
        appendString(value, to: &line)
        line.append(UInt8(ascii: ","))
    }

    /// A JSON string: quotes, backslashes and control characters escaped (RFC 8259), UTF-8 kept as it is.
    private static func appendString(_ text: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): line += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): line += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: line += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: line += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: line += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                line += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }
}
