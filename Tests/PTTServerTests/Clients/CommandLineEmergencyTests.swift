import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// An emergency as a user and an operator run it: `pttctl user rights`, `ptt emergency`, `pttctl channels` and
/// `pttctl emergency`, against `pttd` in its own process, across a crash.
@Suite("Emergencies from the command line")
struct CommandLineEmergencyTests {
    static func secret(_ output: String) throws -> String {
        try String(#require(output.split(separator: "\n").first { $0.hasPrefix("secret: ") }?.dropFirst(8)))
    }

    /// The row of channel deck in `pttctl channels`, whose last column is EMERGENCY.
    static func deckRow(_ data: String) async throws -> String {
        let table = try await Subprocess.run("pttctl", ["channels", "--data", data])
        #expect(table.split(separator: "\n").first?.hasSuffix("EMERGENCY") == true, "the header: \(table)")
        let row = table.split(separator: "\n").first { $0.hasPrefix("deck") }
        return try require_(row.map { String($0).trimmingCharacters(in: .whitespaces) }, "deck in \(table)")
    }

    @Test(
        "ptt emergency by a user with the right: told to a monitor, shown by pttctl, kept across kill -9, cleared by the operator"
    )
    func declareShowClear() async throws {
        let data = TestServer.temporaryDirectory()
        var (daemon, info) = try await Subprocess.startDaemon(data: data)
        defer { daemon.signal(SIGKILL) }
        let ann = try Self.secret(
            try await Subprocess.run("pttctl", ["user", "add", "ann", "--right", "emergency", "--data", data]))
        let bob = try Self.secret(try await Subprocess.run("pttctl", ["user", "add", "bob", "--data", data]))
        #expect(try await Subprocess.run("pttctl", ["user", "list", "--data", data]).contains("emergency"))
        func env(_ user: String, _ secret: String) -> [String: String] {
            [
                "PTT_HOME": TestServer.temporaryDirectory(), "PTT_SERVER": "127.0.0.1:\(info.controlPort)",
                "PTT_USER": user, "PTT_SECRET": secret,
            ]
        }
        let monitor = try Subprocess(
            "ptt", ["monitor", "--channel", "deck", "--stay", "--seconds", TestTimeouts.lifetime(60)],
            environment: env("bob", bob))
        defer { monitor.signal(SIGKILL) }
        _ = try await monitor.waitForLine { $0.contains(#""type":"joined""#) }

        // Bob has no right: refused, and he is told why.
        let refused = try Subprocess("ptt", ["emergency", "--channel", "deck"], environment: env("bob", bob))
        #expect(try await refused.waitForExit() == 1)
        #expect(refused.standardError.contains("not-permitted") || refused.standardError.contains("may not declare"))

        let declare = try Subprocess("ptt", ["emergency", "--channel", "deck"], environment: env("ann", ann))
        #expect(try await declare.waitForExit() == 0, "ptt emergency: \(declare.standardError)")
        #expect(declare.outputLines.contains { $0.contains(#""type":"emergency-declared""#) })
        #expect(declare.outputLines.contains { $0.contains(#""type":"floor-granted""#) })
        let told = try await monitor.waitForLine { $0.contains(#""type":"emergency-declared""#) }
        #expect(told.contains(#""user":"ann""#))
        #expect(try await Self.deckRow(data).hasSuffix("EMERGENCY"))

        // Stored: a crash and a restart keep it.
        daemon.signal(SIGKILL)
        try await daemon.waitForExit()
        (daemon, info) = try await Subprocess.startDaemon(data: data)
        let shown = try await Subprocess.run("pttctl", ["emergency", "show", "deck", "--data", data])
        #expect(shown.contains("EMERGENCY declared by ann"), "\(shown)")

        #expect(try await Subprocess.run("pttctl", ["emergency", "clear", "deck", "--data", data]).contains("cleared"))
        #expect(try await Self.deckRow(data).hasSuffix("-"))
        let again = try Subprocess("pttctl", ["emergency", "clear", "deck", "--data", data])
        #expect(try await again.waitForExit() == 1)
        #expect(again.standardError.contains("not in emergency"))
        let unknown = try Subprocess("pttctl", ["user", "rights", "ann", "fly", "--data", data])
        #expect(try await unknown.waitForExit() != 0)
        #expect(unknown.standardError.contains("emergency, broadcast"))
    }
}
