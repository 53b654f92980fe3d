import SRTP
import TestSupport

/// RTP and RTCP packets built byte by byte for the SRTP tests, so they depend on nothing but the
/// wire format (RFC 3550).
enum SRTPTestPackets {
    /// A reproducible key for `profile`.
    static func key(_ seed: UInt64, _ profile: SRTPProfile = .aesCM128HMACSHA1_80) -> SRTPKey {
        var rng = SplitMix64(seed: seed)
        return SRTPKey.random(for: profile, using: &rng)
    }

    /// An RTP packet: version 2, payload type 111, the given CSRCs, and a header extension of
    /// `extensionWords` 32-bit words (profile 0xBEDE) when it is not nil.
    static func rtp(
        seq: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8] = Array(0..<40),
        csrcs: [UInt32] = [], extensionWords: [UInt32]? = nil
    ) -> [UInt8] {
        var bytes: [UInt8] = [
            0x80 | (extensionWords != nil ? 0x10 : 0) | UInt8(csrcs.count),
            (seq == 0 ? 0x80 : 0) | 111,
        ]
        append(UInt32(seq), width: 2, to: &bytes)
        append(UInt32(seq) &* 960, to: &bytes)
        append(ssrc, to: &bytes)
        for csrc in csrcs { append(csrc, to: &bytes) }
        if let words = extensionWords {
            append(0xBEDE, width: 2, to: &bytes)
            append(UInt32(words.count), width: 2, to: &bytes)
            for word in words { append(word, to: &bytes) }
        }
        return bytes + payload
    }

    /// A compound RTCP packet: an empty receiver report from `ssrc`, then an SDES with its CNAME.
    static func rtcp(ssrc: UInt32, cname: String = "srtp-test") -> [UInt8] {
        var bytes: [UInt8] = [0x80, 201, 0, 1]
        append(ssrc, to: &bytes)
        let name = Array(cname.utf8)
        var item: [UInt8] = [1, UInt8(name.count)] + name + [0]
        while item.count % 4 != 0 { item.append(0) }
        bytes += [0x81, 202]
        append(UInt32((4 + item.count) / 4), width: 2, to: &bytes)
        append(ssrc, to: &bytes)
        return bytes + item
    }

    /// Bytes from a hex string (spaces ignored).
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    private static func append(_ value: UInt32, width: Int = 4, to bytes: inout [UInt8]) {
        for index in (0..<width).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
