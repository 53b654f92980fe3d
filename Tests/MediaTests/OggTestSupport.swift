import AudioFiles
import Foundation
import TestSupport

/// Helpers for the Ogg Opus tests: synthetic packets, a tiny independent page parser, temp
/// directories and external tools.
enum OggFixtures {
    /// Durations (48 kHz samples) a synthetic packet may have, with a TOC byte that says so.
    /// CELT 2.5/5/10/20 ms code 0, SILK 40/60 ms code 0, and code 3 packets of 2...6 × 20 ms.
    static func randomPacket(using rng: inout SplitMix64) -> (data: [UInt8], samples: Int) {
        let size = Int.random(in: 2...1_500, using: &rng)
        var data = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:  // CELT FB, frame size by config % 4: 120/240/480/960, code 0
            let sizeIndex = Int.random(in: 0..<4, using: &rng)
            data[0] = UInt8((28 + sizeIndex) << 3)
            return (data, [120, 240, 480, 960][sizeIndex])
        case 1:  // SILK NB 40 ms (config 2) or 60 ms (config 3), code 0
            let sixty = Bool.random(using: &rng)
            data[0] = UInt8((sixty ? 3 : 2) << 3)
            return (data, sixty ? 2_880 : 1_920)
        case 2:  // CELT 20 ms (config 31), code 1: two frames
            data[0] = UInt8(31 << 3 | 1)
            return (data, 1_920)
        default:  // CELT 20 ms, code 3 with M frames
            let frames = Int.random(in: 1...6, using: &rng)
            data[0] = UInt8(31 << 3 | 3)
            data[1] = UInt8(frames)
            return (data, frames * 960)
        }
    }

    /// Header fields of one Ogg page, parsed independently of libogg.
    struct Page {
        var flags: UInt8
        var granule: Int64
        var serial: UInt32
        var sequence: UInt32
        var lacing: [UInt8]
        var bodyLength: Int
        var isBeginning: Bool { flags & 2 != 0 }
        var isEnd: Bool { flags & 4 != 0 }
        var isContinued: Bool { flags & 1 != 0 }
        /// Packets that end on this page.
        var packetsEnding: Int { lacing.filter { $0 < 255 }.count }
        /// Offset of the page in the stream and its total length.
        var offset: Int
        var length: Int
    }

    /// Splits a well-formed stream into pages (nil if the framing does not add up).
    static func pages(_ bytes: [UInt8]) -> [Page]? {
        var pages: [Page] = []
        var offset = 0
        func le(_ at: Int, _ count: Int) -> UInt64 {
            (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
        while offset < bytes.count {
            guard bytes.count - offset >= 27, Array(bytes[offset..<(offset + 4)]) == Array("OggS".utf8) else {
                return nil
            }
            let segments = Int(bytes[offset + 26])
            guard bytes.count - offset >= 27 + segments else { return nil }
            let lacing = Array(bytes[(offset + 27)..<(offset + 27 + segments)])
            let body = lacing.reduce(0) { $0 + Int($1) }
            let length = 27 + segments + body
            guard bytes.count - offset >= length else { return nil }
            pages.append(
                Page(
                    flags: bytes[offset + 5], granule: Int64(bitPattern: le(offset + 6, 8)),
                    serial: UInt32(le(offset + 14, 4)), sequence: UInt32(le(offset + 18, 4)),
                    lacing: lacing, bodyLength: body, offset: offset, length: length))
            offset += length
        }
        return pages
    }

    /// A fresh empty directory under the system temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("pttrelay-media-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func toolExists(_ name: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/\(name)")
    }
}
