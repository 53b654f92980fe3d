/// The `[UInt8]` conveniences' one piece of work, shared by `SRTPSession` and the tests' libsrtp oracle.
@_spi(SRTPInternals) public enum SRTPArrayTransform {
    /// Copies `packet` into a buffer with `extra` bytes of tail room, runs `operation` in place (pointer,
    /// length, capacity) and trims the result to the length it returns. Allocates.
    public static func run(
        _ packet: [UInt8],
        extra: Int,
        _ operation: (UnsafeMutableRawPointer, Int, Int) throws(SRTPError) -> Int
    ) throws(SRTPError) -> [UInt8] {
        var buffer = packet
        buffer.append(contentsOf: repeatElement(0, count: max(extra, 1)))
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SRTPError) in try operation(raw.baseAddress!, packet.count, raw.count) }
        }
        let length = try result.get()
        buffer.removeSubrange(length...)
        return buffer
    }
}
