#if canImport(Glibc)
import Glibc
#endif

/// A plain UDP socket on 127.0.0.1 for a relay member: sends to the relay, receives with a bounded wait.
/// System calls only, no allocation per datagram (the gate's driver thread is not counted anyway).
final class LoopbackSocket {
    let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 2048)

    /// Binds a fresh socket to 127.0.0.1 on a port the kernel picks; `receiveTimeout` bounds each receive.
    init(receiveTimeout seconds: Int = 5) throws {
        descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw GateFailure("socket(): errno \(errno)") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw GateFailure("bind(127.0.0.1:0): errno \(errno)") }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    /// Sends one datagram to 127.0.0.1:`port`.
    func send(_ bytes: [UInt8], toPort port: Int) throws {
        var address = Self.loopback(port: port)
        let sent = bytes.withUnsafeBytes { payload in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(
                        descriptor, payload.baseAddress, payload.count, 0, $0,
                        socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw GateFailure("sendto(127.0.0.1:\(port)): errno \(errno)") }
    }

    /// Waits (up to the receive timeout) for one datagram and returns its length; nil if none came.
    func receive() -> Int? {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? count : nil
    }
}
