/// Writers for the minimal RTCP a relay sends: an empty Receiver Report, optionally followed by an
/// SDES CNAME, which together form a valid compound packet (RFC 3550 §6.1: a compound starts with
/// SR or RR and includes a CNAME). Useful as a keep-alive that holds NAT bindings open and tells
/// the peer who we are. All writers fill a caller buffer and never allocate.
public enum RTCPWriter {
    /// Length of a Receiver Report with no report blocks: 4-byte header + reporter SSRC.
    public static let emptyReceiverReportLength = 8

    /// Length of an SDES packet holding one chunk with one CNAME of `cnameLength` bytes:
    /// header 4 + SSRC 4 + item (type, length, text) + at least one terminating zero, padded to 4.
    @inlinable
    public static func sourceDescriptionLength(cnameLength: Int) -> Int {
        8 + (2 + cnameLength + 1 + 3) / 4 * 4
    }

    /// Length of the keep-alive compound: an empty RR, plus an SDES if there is a CNAME.
    @inlinable
    public static func keepAliveLength(cnameLength: Int?) -> Int {
        emptyReceiverReportLength + (cnameLength.map(sourceDescriptionLength(cnameLength:)) ?? 0)
    }

    /// Writes a Receiver Report (PT 201) with zero report blocks from `ssrc`. Returns 8.
    public static func writeEmptyReceiverReport(
        into buffer: UnsafeMutableRawBufferPointer,
        ssrc: UInt32
    ) throws(RTCPWriteError) -> Int {
        let length = emptyReceiverReportLength
        guard buffer.count >= length else { throw .bufferTooSmall(needed: length, available: buffer.count) }
        buffer[0] = 2 << 6  // V=2, P=0, RC=0
        buffer[1] = RTCPPacketType.receiverReport.rawValue
        buffer.rtpStore(UInt16(length / 4 - 1), at: 2)
        buffer.rtpStore(ssrc, at: 4)
        return length
    }

    /// Writes an SDES (PT 202) with one chunk for `ssrc` carrying one CNAME item (`cname`, 1–255
    /// bytes of UTF-8), terminated and padded with zeros to a 32-bit boundary. Returns the length.
    public static func writeSourceDescription(
        into buffer: UnsafeMutableRawBufferPointer,
        ssrc: UInt32,
        cname: UnsafeRawBufferPointer
    ) throws(RTCPWriteError) -> Int {
        guard (1...255).contains(cname.count) else { throw .invalidCNAMELength(cname.count) }
        let length = sourceDescriptionLength(cnameLength: cname.count)
        guard buffer.count >= length else { throw .bufferTooSmall(needed: length, available: buffer.count) }
        buffer[0] = 2 << 6 | 1  // V=2, P=0, SC=1
        buffer[1] = RTCPPacketType.sourceDescription.rawValue
        buffer.rtpStore(UInt16(length / 4 - 1), at: 2)
        buffer.rtpStore(ssrc, at: 4)
        buffer[8] = 1  // CNAME
        buffer[9] = UInt8(cname.count)
        (buffer.baseAddress! + 10).copyMemory(from: cname.baseAddress!, byteCount: cname.count)
        // END item and padding: zeros up to the end of the packet.
        let tail = 10 + cname.count
        (buffer.baseAddress! + tail).initializeMemory(as: UInt8.self, repeating: 0, count: length - tail)
        return length
    }

    /// Writes the keep-alive compound: an empty RR from `ssrc`, followed, if `cname` is given, by an
    /// SDES CNAME for the same SSRC. Returns the total length.
    public static func writeKeepAlive(
        into buffer: UnsafeMutableRawBufferPointer,
        ssrc: UInt32,
        cnameBytes cname: UnsafeRawBufferPointer?
    ) throws(RTCPWriteError) -> Int {
        if let cname, !(1...255).contains(cname.count) { throw .invalidCNAMELength(cname.count) }
        let total = keepAliveLength(cnameLength: cname?.count)
        guard buffer.count >= total else { throw .bufferTooSmall(needed: total, available: buffer.count) }
        var written = try writeEmptyReceiverReport(into: buffer, ssrc: ssrc)
        if let cname {
            written += try writeSourceDescription(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[written...]), ssrc: ssrc, cname: cname
            )
        }
        return written
    }

    /// Writes the keep-alive compound with a `String` CNAME (UTF-8, 1–255 bytes). Does not allocate
    /// for native strings.
    public static func writeKeepAlive(
        into buffer: UnsafeMutableRawBufferPointer,
        ssrc: UInt32,
        cname: String?
    ) throws(RTCPWriteError) -> Int {
        guard var cname else { return try writeKeepAlive(into: buffer, ssrc: ssrc, cnameBytes: nil) }
        let result = cname.withUTF8 { utf8 in
            Result { () throws(RTCPWriteError) in
                try writeKeepAlive(into: buffer, ssrc: ssrc, cnameBytes: UnsafeRawBufferPointer(utf8))
            }
        }
        return try result.get()
    }

    /// Builds the keep-alive compound (empty RR, then SDES CNAME if given) as a new array.
    /// A convenience for tests and clients; allocates.
    public static func makeKeepAlive(ssrc: UInt32, cname: String?) throws(RTCPWriteError) -> [UInt8] {
        let length = keepAliveLength(cnameLength: cname?.utf8.count)
        var packet = [UInt8](repeating: 0, count: length)
        let result = packet.withUnsafeMutableBytes { out in
            Result { () throws(RTCPWriteError) in try writeKeepAlive(into: out, ssrc: ssrc, cname: cname) }
        }
        _ = try result.get()
        return packet
    }
}
