import CUDPBatch

#if canImport(Glibc)
import Glibc
#endif

/// The copies of one read batch, built in place in one arena and sent with `sendmmsg` on the relay's own
/// socket descriptor: no buffer, envelope or address object per copy, and a few system calls per fan-out.
///
/// Used only on the relay's event loop. When the kernel's send buffer is full (`EAGAIN`), the datagrams
/// not sent are handed to ``overflow`` (NIO's write path, which waits for the socket); any other error
/// concerns one destination, which is skipped and counted.
final class DatagramBatch {
    /// Datagrams sent with one call of `send`.
    typealias Send = (
        _ fd: Int32, _ datagrams: UnsafePointer<cudp_datagram>, _ count: Int32, _ failure: UnsafeMutablePointer<Int32>
    ) -> Int32

    static let maxDatagrams = 1024
    static let arenaBytes = 1 << 20

    private let descriptor: Int32
    private let send: Send
    private let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: DatagramBatch.arenaBytes, alignment: 16)
    private let datagrams = UnsafeMutablePointer<cudp_datagram>.allocate(capacity: DatagramBatch.maxDatagrams)
    private(set) var count = 0
    private var used = 0

    /// Receives, in order, what could not be sent because the socket's send buffer was full.
    var overflow: (_ bytes: UnsafeRawBufferPointer, _ to: RawSocketAddress) -> Void = { _, _ in }
    /// Called once per datagram a send error (other than a full buffer) dropped, with the errno.
    var dropped: (_ errno: Int32) -> Void = { _ in }

    init(descriptor: Int32, send: @escaping Send = { cudp_send_batch($0, $1, $2, $3) }) {
        self.descriptor = descriptor
        self.send = send
    }

    deinit {
        arena.deallocate()
        datagrams.deallocate()
    }

    /// Whether a datagram of up to `maxLength` bytes fits without sending what is queued first.
    func hasRoom(for maxLength: Int) -> Bool {
        count < Self.maxDatagrams && used + maxLength <= arena.count
    }

    /// Builds one datagram in place with `build` (which returns its length, 0 for none) and queues it for
    /// `address`. The caller makes room first (``hasRoom(for:)``, ``flush()``); a datagram larger than the
    /// whole arena is not queued. Returns whether one was queued.
    func append(to address: RawSocketAddress, maxLength: Int, _ build: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        guard hasRoom(for: maxLength) else { return false }
        let slot = UnsafeMutableRawBufferPointer(rebasing: arena[used..<(used + maxLength)])
        let length = build(slot)
        guard length > 0, length <= maxLength else { return false }
        datagrams[count] = cudp_datagram(
            address: address.storage, addressLength: address.length,
            bytes: UnsafeRawPointer(slot.baseAddress!), length: length)
        count += 1
        // Keep every datagram 16-byte aligned in the arena (the next one's AES works on its own bytes).
        used += (length + 15) & ~15
        return true
    }

    /// Sends everything queued; empties the batch.
    func flush() {
        var next = 0
        while next < count {
            var failure: Int32 = 0
            let sent = Int(send(descriptor, datagrams + next, Int32(count - next), &failure))
            next += max(0, sent)
            guard next < count else { break }
            if failure == EAGAIN || failure == EWOULDBLOCK {
                for index in next..<count {
                    let datagram = datagrams[index]
                    overflow(
                        UnsafeRawBufferPointer(start: datagram.bytes, count: datagram.length),
                        RawSocketAddress(datagram))
                }
                break
            }
            // An error for this one destination (unreachable, refused by a filter): skip it, send the rest.
            dropped(failure)
            next += 1
        }
        count = 0
        used = 0
    }
}
