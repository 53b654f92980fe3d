/// Recomputes the CRC of every complete Ogg page in a buffer (RFC 3533 §6: polynomial 0x04C11DB7,
/// initial value 0, no reflection, over the page with its CRC field zeroed).
enum OggPageCRC {
    static let table: [UInt32] = (0..<256).map { index in
        var r = UInt32(index) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func fix(_ bytes: inout [UInt8]) {
        var offset = 0
        while offset + 27 <= bytes.count {
            guard bytes[offset] == 0x4F, bytes[offset + 1] == 0x67, bytes[offset + 2] == 0x67, bytes[offset + 3] == 0x53
            else {
                offset += 1
                continue
            }
            let segments = Int(bytes[offset + 26])
            guard offset + 27 + segments <= bytes.count else { return }
            let bodyLength = bytes[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
            let end = offset + 27 + segments + bodyLength
            guard end <= bytes.count else { return }
            for index in 22..<26 { bytes[offset + index] = 0 }
            var crc: UInt32 = 0
            for byte in bytes[offset..<end] { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
            for index in 0..<4 { bytes[offset + 22 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
            offset = end
        }
    }
}
