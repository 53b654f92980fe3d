import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport

/// `pttd` running inside the server namespace of a `TestNetwork`, with users, and `ptt` clients on the
/// client hosts: what the network fault scenarios share. Reads the admin API from inside the server
/// namespace (its port listens on that namespace's loopback only).
final class FaultLab: Sendable {
    let network: TestNetwork
    let daemon: Subprocess
    let data: String
    let info: RuntimeInfo
    private let home: String
    private let secrets: [String: String]

    /// Starts `pttd` with `config` (JSON) as DATA/config.json and adds `users`.
    static func start(_ network: TestNetwork, config: String, users: [String]) async throws -> FaultLab {
        let data = TestServer.temporaryDirectory()
        try config.write(toFile: data + "/config.json", atomically: true, encoding: .utf8)
        let daemon = try network.spawn(
            in: network.server, "pttd",
            [
                "--data", data, "--control-port", "0", "--admin-port", "0", "--media-port", "0", "--web-port", "0",
            ])
        let deadline = ContinuousClock.now + .seconds(30)
        var info: RuntimeInfo?
        while info == nil {
            if let bytes = FileManager.default.contents(atPath: data + "/runtime.json"),
                let read = try? JSONDecoder().decode(RuntimeInfo.self, from: bytes),
                read.pid == daemon.process.processIdentifier
            {
                info = read
                break
            }
            guard daemon.process.isRunning else { throw TestFailure("pttd exited: \(daemon.standardError)") }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("pttd did not write runtime.json: \(daemon.standardError)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        var secrets: [String: String] = [:]
        for user in users {
            let added = try await network.run(in: network.server, "pttctl", ["user", "add", user, "--data", data])
            secrets[user] = try require_(
                added.split(separator: "\n").first { $0.hasPrefix("secret: ") }.map {
                    String($0.dropFirst("secret: ".count))
                },
                "secret of \(user)")
        }
        return FaultLab(network: network, daemon: daemon, data: data, info: try require_(info), secrets: secrets)
    }

    private init(network: TestNetwork, daemon: Subprocess, data: String, info: RuntimeInfo, secrets: [String: String]) {
        self.network = network
        self.daemon = daemon
        self.data = data
        self.info = info
        self.secrets = secrets
        self.home = TestServer.temporaryDirectory()
    }

    /// Runs `ptt ARGUMENTS` on `host` as `user`, talking to the server's address on that host's link.
    func ptt(on host: TestNetwork.Host, as user: String, _ arguments: [String]) throws -> Subprocess {
        let environment = [
            "PTT_HOME": home, "PTT_SERVER": "\(host.serverAddress):\(info.controlPort)", "PTT_USER": user,
            "PTT_SECRET": secrets[user] ?? "unknown",
        ]
        return try network.spawn(in: host.namespace, "ptt", arguments, environment: environment)
    }

    /// `GET path` on the admin API, from inside the server namespace (it listens on that namespace's loopback).
    func admin(_ path: String) throws -> String {
        let token = try String(contentsOfFile: data + "/admin-token", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard let port = URL(string: info.adminURL)?.port else {
            throw TestFailure("no admin port in \(info.adminURL)")
        }
        return try NamespaceThread.httpGet(in: network.server, port: port, path: path, token: token)
    }

    /// The value of one metric (the exact name with labels, as Prometheus prints it), 0 when absent.
    func metric(_ name: String) async throws -> Double {
        let text = try admin("/metrics")
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }

    func channel(_ name: String) async throws -> ChannelDetail {
        try JSONDecoder().decode(ChannelDetail.self, from: Data(try admin("/api/channels/\(name)").utf8))
    }

    /// Polls `probe` every 50 ms until it returns a value, or fails after `timeout` with `what`.
    func waitFor<T>(_ what: String, timeout: Duration = .seconds(20), _ probe: () async throws -> T?) async throws -> T
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try await probe() { return value }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("timed out after \(timeout) waiting for \(what)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until the metric reaches `value`.
    func waitFor(metric name: String, atLeast value: Double, timeout: Duration = .seconds(20)) async throws -> Double {
        try await waitFor("\(name) ≥ \(value)", timeout: timeout) {
            let now = try await metric(name)
            return now >= value ? now : nil
        }
    }
}

/// The numbers `ptt listen` prints when it stops.
struct ListenSummary: Equatable {
    var written = 0, concealed = 0, reordered = 0, duplicates = 0, late = 0

    /// Parses `ptt: wrote N packets to OUT (concealed C, reordered R, duplicates D, late L, …)`.
    init(_ standardError: String) throws {
        guard let line = standardError.split(separator: "\n").last(where: { $0.contains("ptt: wrote ") }) else {
            throw TestFailure("no summary from ptt listen: \(standardError)")
        }
        func number(after word: String) -> Int {
            guard let range = line.range(of: word) else { return -1 }
            return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? -1
        }
        written = number(after: "wrote ")
        concealed = number(after: "concealed ")
        reordered = number(after: "reordered ")
        duplicates = number(after: "duplicates ")
        late = number(after: "late ")
    }
}
