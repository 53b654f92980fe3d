extension OggOpusFileWriter {
    /// Fills `samples` of 48 kHz time with 1-byte packets (a TOC byte alone: CELT fullband 20, 10, 5, 2.5 ms, one
    /// frame), which a decoder conceals: a gap kept in a stream (lost packets, silence nobody sent). What is shorter
    /// than 2.5 ms is left out; returns the samples filled.
    @discardableResult
    public func writeFiller(samples: Int) throws(OggOpusError) -> Int {
        var left = samples
        for (toc, length) in [(UInt8(0xF8), 960), (0xF0, 480), (0xE8, 240), (0xE0, 120)] {
            while left >= length {
                try write(packet: [toc], samples: length)
                left -= length
            }
        }
        return samples - left
    }
}
