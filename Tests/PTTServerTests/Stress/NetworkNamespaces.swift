import Foundation
import TestSupport

/// Test hosts on one machine: a network namespace for the server and one per client host, each client
/// joined to the server by a veth pair on its own private /24 (`10.S.K.0/24`: the server is `.1`, the
/// client `.2`). The veths are created directly inside the namespaces, so nothing touches the machine's
/// own interfaces, addresses or routes, and no packet leaves the namespaces.
///
/// Names are unique per process and network (`pttnf-PID-N-…`); `destroy()` kills what was started in the
/// namespaces and deletes them (call it from a `defer`), and namespaces left by a process that died
/// are deleted the next time a network is made.
final class TestNetwork: @unchecked Sendable {
    // @unchecked: `hosts` and `processes` are guarded by `lock`.

    /// A client host: its namespace, its end of the link and the server's address on that link.
    struct Host: Sendable {
        var namespace: String
        /// The host's interface (inside its namespace).
        var device: String
        var address: String
        /// The server's address on this host's link.
        var serverAddress: String
        /// The link's prefix, e.g. `10.201.1` (addresses `.1` to `.254` of it are free for the test).
        var subnet: String
    }

    static let prefix = "pttnf-"
    private static let counter = NSLock()
    nonisolated(unsafe) private static var made = 0

    let name: String
    /// The server's namespace.
    let server: String
    private let octet: Int
    private let lock = NSLock()
    private var hosts: [Host] = []
    private var processes: [Subprocess] = []

    /// Why namespaces cannot be made on this machine (printed when the tests are skipped), or nil.
    static let unavailableReason: String? = probe()

    /// Whether the network fault tests can run here; prints the reason (once) when they cannot.
    static let isAvailable: Bool = {
        guard let reason = unavailableReason else { return true }
        print("NetworkFaultTests skipped: \(reason)")
        return false
    }()

    init() throws {
        let number = Self.counter.withLock {
            Self.made += 1
            return Self.made
        }
        name = "\(Self.prefix)\(getpid())-\(number)"
        server = name + "-srv"
        octet = 200 + number % 50
        Self.removeAbandoned()
        try Self.ip(["netns", "add", server])
        try Self.ip(["-n", server, "link", "set", "lo", "up"])
    }

    /// Adds a client host linked to the server.
    func addHost(_ label: String) throws -> Host {
        let index = lock.withLock { hosts.count + 1 }
        let subnet = "10.\(octet).\(index)"
        let host = Host(
            namespace: "\(name)-\(label)", device: "eth0", address: subnet + ".2", serverAddress: subnet + ".1",
            subnet: subnet)
        try Self.ip(["netns", "add", host.namespace])
        lock.withLock { hosts.append(host) }
        let serverDevice = "veth\(index)"
        try Self.ip([
            "link", "add", serverDevice, "netns", server, "type", "veth", "peer", "name", host.device, "netns",
            host.namespace,
        ])
        try Self.ip(["-n", server, "addr", "add", host.serverAddress + "/24", "dev", serverDevice])
        try Self.ip(["-n", server, "link", "set", serverDevice, "up"])
        try Self.ip(["-n", host.namespace, "addr", "add", host.address + "/24", "dev", host.device])
        try Self.ip(["-n", host.namespace, "link", "set", host.device, "up"])
        try Self.ip(["-n", host.namespace, "link", "set", "lo", "up"])
        // Deleting the first address of the link must keep a second one (roaming to a new address).
        try Self.run(
            Self.ipPath!,
            [
                "netns", "exec", host.namespace, "sh", "-c",
                "echo 1 > /proc/sys/net/ipv4/conf/\(host.device)/promote_secondaries",
            ])
        return host
    }

    /// Starts `executable` (a built product such as `pttd`, or an absolute path) inside `namespace`.
    func spawn(
        in namespace: String, _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Subprocess {
        let path = executable.hasPrefix("/") ? executable : try Executables.path(executable)
        let child = try Subprocess(
            Self.ipPath!, ["netns", "exec", namespace, path] + arguments, environment: environment)
        lock.withLock { processes.append(child) }
        return child
    }

    /// Runs a command inside `namespace` to completion and returns its standard output.
    func run(
        in namespace: String, _ executable: String, _ arguments: [String], timeout: Duration = .seconds(30)
    ) async throws -> String {
        let path = executable.hasPrefix("/") ? executable : try Executables.path(executable)
        return try await Subprocess.run(Self.ipPath!, ["netns", "exec", namespace, path] + arguments, timeout: timeout)
    }

    /// Kills every process started in the namespaces and deletes the namespaces (and with them their veths).
    func destroy() {
        let (children, namespaces) = lock.withLock { (processes, [server] + hosts.map(\.namespace)) }
        for child in children where child.process.isRunning { child.signal(SIGKILL) }
        for child in children { child.process.waitUntilExit() }
        for namespace in namespaces { try? Self.ip(["netns", "del", namespace]) }
    }

    // MARK: - Commands

    static let ipPath = Tools.path("ip")
    static let tcPath = Tools.path("tc")

    static func ip(_ arguments: [String]) throws {
        guard let ipPath else { throw TestFailure("ip (iproute2) is not installed") }
        try run(ipPath, arguments)
    }

    static func tc(_ arguments: [String]) throws {
        guard let tcPath else { throw TestFailure("tc (iproute2) is not installed") }
        try run(tcPath, arguments)
    }

    /// Runs a short command synchronously (usable from `defer`); throws with its standard error if it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try ToolRun.runBlocking(executable, arguments)
        guard result.status == 0 else {
            throw TestFailure(
                "\(executable) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// Deletes namespaces of this kind whose process is gone (a test run that was killed).
    private static func removeAbandoned() {
        guard let list = try? run(ipPath!, ["netns", "list"]) else { return }
        for line in list.split(separator: "\n") {
            let namespace = String(line.split(separator: " ").first ?? "")
            guard namespace.hasPrefix(prefix),
                let pid = Int32(namespace.dropFirst(prefix.count).split(separator: "-").first ?? ""),
                pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? ip(["netns", "del", namespace])
        }
    }

    /// Makes a namespace with a veth pair, a TUN device, a clsact qdisc and a mirred filter, then deletes it:
    /// everything the tests need.
    private static func probe() -> String? {
        guard let ipPath else { return "ip (iproute2) is not installed: run `make test-tools`" }
        guard tcPath != nil else { return "tc (iproute2) is not installed: run `make test-tools`" }
        guard FileManager.default.fileExists(atPath: "/dev/net/tun") else {
            return "/dev/net/tun is missing (no TUN support)"
        }
        let namespace = "\(prefix)\(getpid())-probe"
        do {
            try ip(["netns", "add", namespace])
        } catch {
            return "cannot make network namespaces (root or CAP_NET_ADMIN needed): \(error)"
        }
        defer { try? ip(["netns", "del", namespace]) }
        do {
            try ip(["-n", namespace, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1"])
            try ip(["-n", namespace, "tuntap", "add", "dev", "t0", "mode", "tun"])
            try tc(["-n", namespace, "qdisc", "add", "dev", "probe0", "clsact"])
            try tc([
                "-n", namespace, "filter", "add", "dev", "probe0", "ingress", "protocol", "ip", "u32", "match", "u32",
                "0", "0",
                "action", "mirred", "egress", "redirect", "dev", "t0",
            ])
        } catch {
            return "the kernel lacks something the tests use (veth, TUN, clsact, u32, mirred): \(error) (\(ipPath))"
        }
        return nil
    }
}
