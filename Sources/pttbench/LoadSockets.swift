#if os(Linux)
import Foundation
import Glibc

/// The run's UDP sockets on 127.0.0.1, each on its own port and connected to the relay: one per listener, one per
/// late listener and the talker's. Closed with `closeAll()`.
struct LoadSockets {
    /// One per listener, in listener order; epoll tags them by index.
    let listenerFDs: [Int32]
    /// Each listener socket's local port (for the kernel's per-socket drop counters).
    let listenerPorts: [Int]
    /// One per late listener, in order; epoll tags them by `listenerFDs.count` + index.
    let lateFDs: [Int32]
    let latePorts: [Int]
    let talkerFD: Int32

    /// Opens `listeners` + `lateListeners` listener sockets (with `receiveBuffer` bytes and, if asked, kernel
    /// receive timestamps) and the talker's; on a failure closes those already open.
    init(
        relayPort: Int, listenerRelayPorts: [Int]? = nil, listeners: Int, lateListeners: Int = 0, receiveBuffer: Int,
        timestamps: Bool
    ) throws {
        var fds: [Int32] = []
        var ports: [Int] = []
        do {
            for index in 0..<(listeners + lateListeners) {
                let relay = listenerRelayPorts.flatMap { index < $0.count ? $0[index] : nil } ?? relayPort
                let (fd, port) = try Self.openSocket(
                    relayPort: relay, receiveBuffer: receiveBuffer, timestamps: timestamps)
                fds.append(fd)
                ports.append(port)
            }
            talkerFD = try Self.openSocket(relayPort: relayPort, receiveBuffer: 0, timestamps: false).fd
        } catch {
            for fd in fds { close(fd) }
            throw error
        }
        listenerFDs = Array(fds.prefix(listeners))
        listenerPorts = Array(ports.prefix(listeners))
        lateFDs = Array(fds.dropFirst(listeners))
        latePorts = Array(ports.dropFirst(listeners))
    }

    func closeAll() {
        for fd in listenerFDs + lateFDs { close(fd) }
        close(talkerFD)
    }

    /// A UDP socket on 127.0.0.1 (its own port), connected to the relay.
    static func openSocket(relayPort: Int, receiveBuffer: Int, timestamps: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(
            AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw BenchError("socket(): \(String(cString: strerror(errno))) (too many open files? see ulimit -n)")
        }
        if timestamps {
            var on: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, LinuxSys.soTimestampNS, &on, 4) == 0 else {
                close(fd)
                throw BenchError("SO_TIMESTAMPNS: \(String(cString: strerror(errno)))")
            }
        }
        if receiveBuffer > 0 {
            var size = Int32(receiveBuffer)
            // SO_RCVBUFFORCE (33) passes net.core.rmem_max when running as root; else SO_RCVBUF.
            if setsockopt(fd, SOL_SOCKET, 33, &size, 4) != 0 {
                _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, 4)
            }
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        local.sin_port = 0
        var remote = local
        remote.sin_port = in_port_t(UInt16(relayPort).bigEndian)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard bound == 0, connected == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw BenchError("bind/connect UDP socket: \(message)")
        }
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }
}
#endif
