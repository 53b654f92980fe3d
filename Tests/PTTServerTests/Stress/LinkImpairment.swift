import Foundation
import TestSupport

/// What `tc netem loss L delay D J reorder R duplicate P` does to the packets a host receives, done in user
/// space: the kernel this project is tested on has no netem (`CONFIG_NET_SCH_NETEM` is not set), while it
/// has TUN devices and `act_mirred`. A clsact filter on the host's interface redirects every IPv4 packet
/// arriving there to a TUN device in the same namespace; a thread reads them, drops, delays (with jitter),
/// sends some at once (overtaking the delayed ones, as netem's `reorder` does) or twice, and writes them
/// back into the TUN device, from where the host receives them as usual.
///
/// Decisions come from a seeded generator, one stream for UDP and one for everything else, four draws per
/// packet: the fate of the n-th UDP packet is the same on every run, and `counts` tells which were lost.
final class LinkImpairment: @unchecked Sendable {
    // @unchecked: `state` is guarded by `lock`; `descriptor` is used by the thread only until `stop` joins it.

    struct Profile: Sendable {
        var loss = 0.0
        var delayMs = 0.0
        var jitterMs = 0.0
        /// Share of packets sent at once, overtaking the delayed ones.
        var reorder = 0.0
        var duplicate = 0.0
    }

    struct Counts: Sendable {
        /// UDP packets that arrived on the link.
        var udp = 0
        /// Zero-based positions (among the UDP packets) of the ones dropped.
        var droppedUDP: [Int] = []
        var duplicatedUDP = 0
        var earlyUDP = 0
        /// Packets of other protocols (TCP: the control connection).
        var other = 0
        var otherDropped = 0
        /// Packets waiting for their delivery time.
        var queued = 0
    }

    private let descriptor: Int32
    private let profile: Profile
    private let lock = NSLock()
    private var state = Counts()
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    var counts: Counts { lock.withLock { state } }

    /// Impairs what `host` receives on its interface until `stop()`.
    static func attach(to host: TestNetwork.Host, _ profile: Profile, seed: UInt64) throws -> LinkImpairment {
        let device = "impair0"
        let descriptor = try openTUN(named: device, inNamespace: host.namespace)
        let impairment = LinkImpairment(descriptor: descriptor, profile: profile)
        impairment.start(seed: seed)
        try TestNetwork.ip(["-n", host.namespace, "link", "set", device, "up"])
        try TestNetwork.tc(["-n", host.namespace, "qdisc", "add", "dev", host.device, "clsact"])
        try TestNetwork.tc([
            "-n", host.namespace, "filter", "add", "dev", host.device, "ingress", "protocol", "ip", "u32", "match",
            "u32", "0", "0",
            "action", "mirred", "egress", "redirect", "dev", device,
        ])
        return impairment
    }

    private init(descriptor: Int32, profile: Profile) {
        self.descriptor = descriptor
        self.profile = profile
    }

    /// Stops the thread and closes the TUN device (which removes it); the host's filter then drops what arrives.
    func stop() {
        guard
            lock.withLock({ () -> Bool in
                defer { running = false }
                return running
            })
        else { return }
        finished.wait()
        close(descriptor)
    }

    // MARK: - The link

    private struct Pending {
        var due: UInt64
        var packet: [UInt8]
    }

    private func start(seed: UInt64) {
        let thread = Thread { [self] in
            var udpRandom = SplitMix64(seed: seed)
            var otherRandom = SplitMix64(seed: seed ^ 0xA5A5_A5A5)
            var queue: [Pending] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while lock.withLock({ running }) {
                let now = DispatchTime.now().uptimeNanoseconds
                queue.sort { $0.due < $1.due }
                while let first = queue.first, first.due <= now {
                    _ = first.packet.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                    queue.removeFirst()
                }
                let wait = queue.first.map { Int32(min(20, ($0.due - now) / 1_000_000)) } ?? 20
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, wait)
                while true {
                    let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    guard length > 0 else { break }
                    let packet = Array(buffer[0..<length])
                    let udp = length >= 20 && packet[0] >> 4 == 4 && packet[9] == 17
                    if udp {
                        queue += decide(packet, at: DispatchTime.now().uptimeNanoseconds, random: &udpRandom, udp: true)
                    } else {
                        queue += decide(
                            packet, at: DispatchTime.now().uptimeNanoseconds, random: &otherRandom, udp: false)
                    }
                }
                lock.withLock { state.queued = queue.count }
            }
            finished.signal()
        }
        thread.name = "link impairment"
        thread.start()
    }

    /// The packet's fate: nothing (lost), one delivery, or two.
    private func decide(_ packet: [UInt8], at now: UInt64, random: inout SplitMix64, udp: Bool) -> [Pending] {
        func draw() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        let (lost, early, jitter, twice) = (
            draw() < profile.loss, draw() < profile.reorder, draw() * 2 - 1, draw() < profile.duplicate
        )
        let delay = early ? 0 : max(0, profile.delayMs + jitter * profile.jitterMs)
        let due = now + UInt64(delay * 1_000_000)
        return lock.withLock {
            if udp { state.udp += 1 } else { state.other += 1 }
            if lost {
                if udp { state.droppedUDP.append(state.udp - 1) } else { state.otherDropped += 1 }
                return []
            }
            if udp, early { state.earlyUDP += 1 }
            if udp, twice { state.duplicatedUDP += 1 }
            return twice
                ? [Pending(due: due, packet: packet), Pending(due: due + 1_000_000, packet: packet)]
                : [Pending(due: due, packet: packet)]
        }
    }

    // MARK: - TUN in another namespace

    private typealias IOControl = @convention(c) (Int32, UInt, UnsafeMutableRawPointer) -> Int32

    /// Opens a new TUN device (IPv4 packets, no packet information header) inside `namespace`; the
    /// descriptor keeps the device there.
    static func openTUN(named name: String, inNamespace namespace: String) throws -> Int32 {
        // ioctl through dlsym: it is variadic in C.
        guard let symbol = dlsym(nil, "ioctl") else { throw TestFailure("ioctl not found") }
        let ioctl = unsafeBitCast(symbol, to: IOControl.self)
        let descriptor = try NamespaceThread.run(in: namespace) { open("/dev/net/tun", O_RDWR | O_NONBLOCK) }
        guard descriptor >= 0 else { throw TestFailure("open /dev/net/tun: errno \(errno)") }
        var request = [UInt8](repeating: 0, count: 40)  // struct ifreq: name[16], then flags
        for (index, byte) in name.utf8.prefix(15).enumerated() { request[index] = byte }
        let flags: UInt16 = 0x0001 | 0x1000  // IFF_TUN | IFF_NO_PI
        request[16] = UInt8(flags & 0xFF)
        request[17] = UInt8(flags >> 8)
        // TUNSETIFF creates the device in the namespace the descriptor was opened in.
        let status = request.withUnsafeMutableBytes { ioctl(descriptor, 0x4004_54CA, $0.baseAddress!) }  // TUNSETIFF
        guard status == 0 else {
            let code = errno
            close(descriptor)
            throw TestFailure("TUNSETIFF \(name): errno \(code)")
        }
        return descriptor
    }
}

/// Drops packets of one protocol on a host's interface, both ways, as `tc netem loss 100%` would: a
/// clsact filter redirects them to a TUN device that nobody reads (and that is down), where they vanish.
enum LinkBlackhole {
    /// Starts dropping IP packets with protocol number `ipProtocol` (6: TCP, 17: UDP) on `host`'s interface.
    static func start(on host: TestNetwork.Host, ipProtocol: Int) throws {
        try TestNetwork.ip(["-n", host.namespace, "tuntap", "add", "dev", "void0", "mode", "tun"])
        try TestNetwork.tc(["-n", host.namespace, "qdisc", "add", "dev", host.device, "clsact"])
        for direction in ["ingress", "egress"] {
            try TestNetwork.tc([
                "-n", host.namespace, "filter", "add", "dev", host.device, direction, "protocol", "ip", "u32",
                "match", "ip", "protocol", "\(ipProtocol)", "0xff", "action", "mirred", "egress", "redirect", "dev",
                "void0",
            ])
        }
    }

    /// Lets everything through again.
    static func stop(on host: TestNetwork.Host) throws {
        try TestNetwork.tc(["-n", host.namespace, "qdisc", "del", "dev", host.device, "clsact"])
        try TestNetwork.ip(["-n", host.namespace, "link", "del", "void0"])
    }
}
