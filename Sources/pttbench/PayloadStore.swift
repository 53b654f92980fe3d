#if os(Linux)
/// The talker's Opus payloads packed back to back in one buffer, so sending or verifying a packet touches no
/// array of arrays and allocates nothing. Packet k carries payload k mod `count`. Freed with `deallocate()`.
struct PayloadStore {
    let bytes: UnsafeMutableRawPointer
    /// Where each payload starts, and (last) where the final one ends.
    let offsets: [Int]
    let count: Int

    init(_ payloads: [[UInt8]]) {
        var offsets: [Int] = [0]
        for payload in payloads { offsets.append(offsets.last! + payload.count) }
        let store = UnsafeMutableRawPointer.allocate(byteCount: max(1, offsets.last!), alignment: 16)
        for (index, payload) in payloads.enumerated() {
            payload.withUnsafeBytes { (store + offsets[index]).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        bytes = store
        self.offsets = offsets
        count = payloads.count
    }

    /// The payload of the talker's packet `index`.
    @inline(__always)
    func payload(forPacket index: Int) -> UnsafeRawBufferPointer {
        let payloadIndex = index % count
        return UnsafeRawBufferPointer(
            start: bytes + offsets[payloadIndex], count: offsets[payloadIndex + 1] - offsets[payloadIndex])
    }

    func deallocate() { bytes.deallocate() }
}
#endif
