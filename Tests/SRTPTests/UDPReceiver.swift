import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A UDP socket on 127.0.0.1 with a buffer large enough for the whole stream.
final class UDPReceiver {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Glibc.bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
        var bufferSize: Int32 = 4 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The next datagram already waiting in the socket's buffer, or nil if there is none.
    func receiveWaiting() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = buffer.withUnsafeMutableBytes {
            Glibc.recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
        }
        return count >= 0 ? Array(buffer[..<count]) : nil
    }

    func close() { Glibc.close(descriptor) }
}
