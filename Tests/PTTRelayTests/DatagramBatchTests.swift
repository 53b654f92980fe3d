import CUDPBatch
import NIOCore
import Testing

@testable import PTTRelay

#if canImport(Glibc)
import Glibc
#endif

/// The relay's own `sendmmsg` path: datagrams reach a real socket in order; a full send buffer hands the
/// rest to NIO's path in order; an error for one destination skips only that datagram.
@Suite("Sending a fan-out with sendmmsg")
struct DatagramBatchTests {
    /// A bound loopback UDP socket and its address.
    private func socket() throws -> (fd: Int32, address: SocketAddress) {
        var message = [CChar](repeating: 0, count: 256)
        let fd = cudp_open("127.0.0.1", 0, 1 << 20, 1 << 20, &message, message.count)
        try #require(fd >= 0)
        var storage = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, SocketAddress(storage, host: "127.0.0.1"))
    }

    /// Reads one datagram, waiting at most 5 s for it.
    private func receive(_ fd: Int32) -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 5_000) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count >= 0 ? Array(buffer[0..<count]) : nil
    }

    private func append(_ batch: DatagramBatch, _ bytes: [UInt8], to address: RawSocketAddress) -> Bool {
        batch.append(to: address, maxLength: 64) { out in
            out.copyBytes(from: bytes)
            return bytes.count
        }
    }

    @Test("every datagram reaches the socket, in order, with its own length; the batch is empty after")
    func realSocket() throws {
        let sender = try socket()
        let receiver = try socket()
        defer {
            close(sender.fd)
            close(receiver.fd)
        }
        let batch = DatagramBatch(descriptor: sender.fd)
        let to = RawSocketAddress(receiver.address)
        for n in 1...300 {
            #expect(
                append(
                    batch, [UInt8(truncatingIfNeeded: n), UInt8(n % 7)] + [UInt8](repeating: 9, count: n % 40), to: to))
        }
        #expect(batch.count == 300)
        batch.flush()
        #expect(batch.count == 0)
        for n in 1...300 {
            #expect(
                receive(receiver.fd) == [UInt8(truncatingIfNeeded: n), UInt8(n % 7)]
                    + [UInt8](repeating: 9, count: n % 40))
        }
    }

    @Test("a full send buffer hands what was not sent to the overflow, in order")
    func sendBufferFull() throws {
        var calls = 0
        let batch = DatagramBatch(descriptor: -1) { _, _, _, failure in
            calls += 1
            failure.pointee = EAGAIN
            return 2
        }
        var overflowed: [[UInt8]] = []
        batch.overflow = { bytes, address in
            overflowed.append(Array(bytes))
            #expect(address.socketAddress?.port == 5004)
        }
        let to = RawSocketAddress(try SocketAddress(ipAddress: "127.0.0.1", port: 5004))
        for n: UInt8 in 1...5 { _ = append(batch, [n, n], to: to) }
        batch.flush()
        #expect(calls == 1)
        #expect(overflowed == [[3, 3], [4, 4], [5, 5]])
        #expect(batch.count == 0)
    }

    @Test("an error for one destination drops that datagram only, and is reported")
    func oneDestinationFails() throws {
        var offered: [Int32] = []
        let batch = DatagramBatch(descriptor: -1) { _, _, count, failure in
            offered.append(count)
            if offered.count == 1 {
                failure.pointee = EPERM
                return 1
            }
            failure.pointee = 0
            return count
        }
        var errors: [Int32] = []
        batch.dropped = { errors.append($0) }
        batch.overflow = { _, _ in Issue.record("nothing should overflow") }
        let to = RawSocketAddress(try SocketAddress(ipAddress: "::1", port: 5004))
        for n: UInt8 in 1...4 { _ = append(batch, [n], to: to) }
        batch.flush()
        #expect(offered == [4, 2])
        #expect(errors == [EPERM])
    }

    @Test("a datagram that does not fit is refused until the batch is flushed")
    func bounded() throws {
        let batch = DatagramBatch(descriptor: -1) { _, _, count, failure in
            failure.pointee = 0
            return count
        }
        let to = RawSocketAddress(try SocketAddress(ipAddress: "127.0.0.1", port: 5004))
        for _ in 0..<DatagramBatch.maxDatagrams { #expect(append(batch, [1], to: to)) }
        #expect(!batch.hasRoom(for: 64))
        #expect(!append(batch, [1], to: to))
        batch.flush()
        #expect(batch.hasRoom(for: 64))
        #expect(!batch.hasRoom(for: DatagramBatch.arenaBytes + 1))
    }
}
