import CUDPBatch
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// A listener's address as the kernel takes it, made once when the relay learns the address (not per copy:
/// a `SocketAddress` holds its bytes in a reference-counted box).
struct RawSocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    init() {}

    init(_ address: SocketAddress) {
        address.withSockAddr { pointer, size in
            withUnsafeMutableBytes(of: &storage) {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size))
            }
            length = socklen_t(size)
        }
    }

    /// The address a queued datagram goes to.
    init(_ datagram: cudp_datagram) {
        storage = datagram.address
        length = datagram.addressLength
    }

    /// The same address as NIO's type (for the rare datagram that has to go through NIO's write path).
    var socketAddress: SocketAddress? {
        withUnsafeBytes(of: storage) { bytes in
            switch Int32(bytes.load(as: sa_family_t.self)) {
            case AF_INET: SocketAddress(bytes.load(as: sockaddr_in.self), host: "")
            case AF_INET6: SocketAddress(bytes.load(as: sockaddr_in6.self), host: "")
            default: nil
            }
        }
    }
}
