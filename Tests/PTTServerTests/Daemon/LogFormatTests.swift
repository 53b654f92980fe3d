import Foundation
import Logging
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// `--log-format json`: one JSON object per line that any JSON parser reads, whatever the message holds.
@Suite("Log format")
struct LogFormatTests {
    static func parse(_ line: [UInt8]) throws -> [String: String] {
        #expect(line.last == 0x0A && line.dropLast().contains(0x0A) == false, "one line, newline-terminated")
        let object = try JSONSerialization.jsonObject(with: Data(line.dropLast()))
        return try require_(object as? [String: String], "a flat object of strings")
    }

    @Test("fields, escaping, and metadata named like a field")
    func line() throws {
        let time = Date(timeIntervalSince1970: 1_795_000_000.25)
        let message = "quote \" backslash \\ newline\n tab\t bell\u{07} ünïcödé 🎙"
        let fields = try Self.parse(
            JSONLogHandler.line(
                time: time, level: .warning, label: "pttd", message: message,
                ["user": "jane", "message": "shadowed", "remote": "[IPv4]127.0.0.1:4000"]))
        #expect(fields["time"] == "2026-11-18T11:06:40.250Z")
        #expect(fields["level"] == "warning" && fields["label"] == "pttd")
        #expect(fields["message"] == message)
        #expect(fields["user"] == "jane" && fields["remote"] == "[IPv4]127.0.0.1:4000")
        #expect(fields["meta.message"] == "shadowed")
    }

    @Test("pttd --log-format json writes only JSON lines, with the listening line's addresses as fields")
    func daemon() async throws {
        let data = TestServer.temporaryDirectory()
        let daemon = try Subprocess(
            "pttd",
            [
                "--data", data, "--control-host", "127.0.0.1", "--control-port", "0", "--admin-port", "0",
                "--web-host", "127.0.0.1", "--web-port", "0", "--media-port", "0", "--log-format", "json",
            ])
        try await daemon.waitForStandardError(containing: "pttd listening")
        daemon.signal(SIGTERM)
        try await daemon.waitForExit()
        let lines = daemon.standardError.split(separator: "\n").map { Array($0.utf8) + [0x0A] }
        #expect(lines.count >= 3)
        let records = try lines.map(Self.parse)
        let listening = try require_(records.first { $0["message"] == "pttd listening" })
        #expect(listening["level"] == "notice")
        #expect(listening["web"]?.hasPrefix("https://127.0.0.1:") == true)
        #expect(records.contains { $0["message"] == "pttd stopped" })
    }

    @Test("an unknown log format is refused at start")
    func unknownFormat() async throws {
        let daemon = try Subprocess("pttd", ["--data", TestServer.temporaryDirectory(), "--log-format", "xml"])
        #expect(try await daemon.waitForExit() != 0)
        #expect(daemon.standardError.contains("--log-format must be text or json, got 'xml'"))
    }
}
