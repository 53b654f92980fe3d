import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// `pttd` stopping (SIGTERM) with browser members connected over TLS: the web listener's connections must not hold
/// the stop for TLS's close grace.
@Suite("Web listener at shutdown", .timeLimit(.minutes(2)))
struct WebShutdownTests {
    @Test(
        "SIGTERM with browser members that no longer read (no TLS close_notify answer): the web connections close within 1 s"
    )
    func sigtermWithBrowsers() async throws {
        let data = TestServer.temporaryDirectory()
        let (daemon, info) = try await Subprocess.startDaemon(data: data, arguments: ["--log-level", "debug"])
        defer { daemon.signal(SIGKILL) }
        let added = try await Subprocess.run("pttctl", ["--data", data, "user", "add", "jane"])
        let secret = String(
            try #require(added.split(separator: "\n").first { $0.hasPrefix("secret: ") }?.dropFirst("secret: ".count)))
        let port = try require_(URLComponents(string: try require_(info.webURL))?.port)
        var browsers: [RawWebSocket] = []
        for index in 0..<3 {
            let socket = try await RawWebSocket.connect(port: port, tls: true)
            let hello = Hello(user: "jane", secret: secret, device: "browser-\(index)", role: .app, client: "tests")
            try await socket.write(
                RawWebSocket.frame(opcode: 1, Array(try ControlMessageCoding.encode(.hello(hello)))))
            guard case .welcome = try await socket.nextMessage() else { throw TestFailure("expected welcome") }
            try await socket.stopReading()
            browsers.append(socket)
        }

        let start = ContinuousClock.now
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        let stopped = ContinuousClock.now - start
        for socket in browsers { await socket.close() }
        print("SIGTERM with 3 browser members not reading (TLS): pttd exited after \(stopped)")

        #expect(stopped < .seconds(2), "the target: pttd stops within 2 s of SIGTERM")

        // The web listener's part, as pttd logs it: "… count=3 cutOff=3 ms=… web connections closed".
        let line = try require_(
            daemon.standardError.split(separator: "\n").last { $0.contains("web connections closed") },
            "a 'web connections closed' line in the log")
        let milliseconds = try require_(
            line.split(separator: " ").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) })
        print("the web connections closed in \(milliseconds) ms: \(line)")
        #expect(milliseconds < 1000)
    }
}
