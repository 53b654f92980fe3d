/// Hand-built RTP packets for the RTP/SRTP tests, spelled out byte by byte so the tests do not
/// depend on the writer they check.
enum RTPTestPackets {
    /// V=2, no P/X/CC, marker, PT 111, seq 0x1234, ts 0xDECAFBAD, SSRC 0xCAFEBABE, 3-byte payload.
    static let simple: [UInt8] = [
        0x80, 0xEF, 0x12, 0x34,
        0xDE, 0xCA, 0xFB, 0xAD,
        0xCA, 0xFE, 0xBA, 0xBE,
        0x01, 0x02, 0x03,
    ]

    /// CC=2 (CSRCs 0x11111111, 0x22222222), X with profile 0xBEDE and one word of extension,
    /// P with 4 bytes of padding after a 2-byte payload. No marker, PT 96.
    static let full: [UInt8] = [
        0xB2, 0x60, 0x00, 0x07,        // V=2 P=1 X=1 CC=2 | M=0 PT=96 | seq 7
        0x00, 0x00, 0x03, 0xC0,        // ts 960
        0x00, 0x00, 0x00, 0x2A,        // SSRC 42
        0x11, 0x11, 0x11, 0x11,        // CSRC 0
        0x22, 0x22, 0x22, 0x22,        // CSRC 1
        0xBE, 0xDE, 0x00, 0x01,        // extension profile, length 1 word
        0x10, 0xAA, 0x00, 0x00,        // extension body
        0x55, 0x66,                    // payload
        0x00, 0x00, 0x00, 0x04,        // padding, count 4
    ]
}
