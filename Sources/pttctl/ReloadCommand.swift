import ArgumentParser
import PTTAdmin
import PTTKit
import PTTProtocol

/// `pttctl reload`: pttd reads its config file again (`POST /api/reload`, the same as SIGHUP).
struct ReloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make pttd read its config file again and apply it without a restart (like SIGHUP).",
        discussion: """
            Applied at once, without dropping a connection or a talk burst: floor timers (from the next grant), \\
            wake and APNs settings, catch-up, recording, limits and deadlines (for connections accepted from now \\
            on), heartbeats (for sessions from now on), logLevel, and the TLS certificate (its files are read \\
            again). Addresses, ports, tls, web, mediaSecurity, maxConnections, webMaxConnections, \\
            limits.maxPendingHellos and limits.adminMaxConnections need a restart: they are listed, and the \\
            running values stay. A file with an error is refused whole, naming the setting (exit status 1).
            """)
    @OptionGroup var admin: AdminOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let client = try admin.client()
        let report: ReloadReport = try await adminCall {
            try await client.post("/api/reload", body: AdminClient.Empty())
        }
        if json { return try printJSON(report) }
        print("reloaded \(report.configFile ?? "(no config file: built-in defaults and pttd's flags)")")
        print(
            report.applied.isEmpty ? "applied: nothing changed" : "applied: \(report.applied.joined(separator: ", "))")
        if !report.needsRestart.isEmpty {
            print(
                "needs a restart (the running values stay until then): \(report.needsRestart.joined(separator: ", "))")
        }
        if report.certificateChanged, let certificate = report.certificate {
            print("TLS certificate changed: new connections get \(certificate.fingerprint)")
            print("clients that pinned the old one are refused until they accept this one (see pttctl cert)")
        }
    }
}

/// `pttctl cert`: the TLS certificate clients are given, and its fingerprint (`GET /api/certificate`).
struct CertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cert",
        abstract: "Print the TLS certificate's SHA-256 fingerprint (what clients pin), names and expiry.",
        discussion: """
            Tell users the fingerprint so they can check what their client shows on first connection, and again \\
            after a rotation: a client that pinned the old certificate refuses the new one, saying both \\
            fingerprints, until the user accepts it.
            """)
    @OptionGroup var admin: AdminOptions
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Print the fingerprint alone (for scripts).") var fingerprint = false

    func run() async throws {
        let client = try admin.client()
        let report: CertificateReport = try await adminCall { try await client.get("/api/certificate") }
        if json { return try printJSON(report) }
        if fingerprint { return print(report.fingerprint) }
        let expiry =
            report.daysLeft < 0
            ? "EXPIRED \(-report.daysLeft) days ago" : "\(report.daysLeft) days left"
        let rows = [
            ("fingerprint", "SHA-256 \(report.fingerprint)"),
            ("source", report.source == .operator ? "the operator's (tlsCertificate)" : "self-signed by pttd"),
            ("subject", report.subject),
            ("issuer", report.issuer),
            ("names", report.names.isEmpty ? "-" : report.names.joined(separator: ", ")),
            ("valid", "\(report.notBefore) to \(report.notAfter) (\(expiry))"),
            ("chain", "\(report.chainLength) certificate\(report.chainLength == 1 ? "" : "s") sent"),
            ("files", "\(report.certificateFile), \(report.keyFile)"),
        ]
        for (name, value) in rows { print(name.padding(toLength: 12, withPad: " ", startingAt: 0) + value) }
    }
}
