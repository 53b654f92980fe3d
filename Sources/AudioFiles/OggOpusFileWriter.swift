import Foundation

/// Writes an Ogg Opus stream to a file or a pipe (e.g. standard output) as it is produced.
///
/// Page bytes go out as soon as `OggOpusWriter` releases them, so a file being recorded can be
/// played up to a recent point. Call `finish` to write the end-of-stream page; a writer dropped
/// without it leaves a stream without one (readable, but flagged by `opusinfo`).
public final class OggOpusFileWriter {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private var writer: OggOpusWriter

    /// Creates (or truncates) a file and writes the header page into it.
    ///
    /// - Throws: `.io` with the system's reason if the file cannot be created or written.
    public init(path: String, writer: OggOpusWriter) throws(OggOpusError) {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw .io("cannot create \(path)")
        }
        do {
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        } catch {
            throw .io("cannot open \(path): \(error.localizedDescription)")
        }
        ownsHandle = true
        self.writer = writer
        try emit(self.writer.flush())
    }

    /// Creates a file for a mono or stereo stream with default settings (see `OggOpusWriter`).
    public convenience init(
        path: String, channels: Int, preSkip: Int = 312, vendor: String = "pttrelay"
    ) throws(OggOpusError) {
        try self.init(path: path, writer: OggOpusWriter(channels: channels, preSkip: preSkip, vendor: vendor))
    }

    /// Writes to an open handle, e.g. `FileHandle.standardOutput`; the handle stays open after `finish`.
    ///
    /// - Throws: `.io` if writing the header page fails.
    public init(handle: FileHandle, writer: OggOpusWriter) throws(OggOpusError) {
        self.handle = handle
        ownsHandle = false
        self.writer = writer
        try emit(self.writer.flush())
    }

    /// The granule position after the last packet written (all samples, pre-skip included).
    public var granulePosition: Int64 { writer.granulePosition }

    /// Adds one Opus packet of `samples` 48 kHz samples; see `OggOpusWriter.write(packet:samples:)`.
    public func write(packet: some Collection<UInt8>, samples: Int) throws(OggOpusError) {
        try emit(writer.write(packet: packet, samples: samples))
    }

    /// Adds one Opus packet, its duration taken from its TOC byte.
    public func write(packet: some Collection<UInt8>) throws(OggOpusError) {
        try emit(writer.write(packet: packet))
    }

    /// Writes out every page that can be closed now (all but the most recent packet).
    public func flush() throws(OggOpusError) {
        try emit(writer.flush())
    }

    /// Writes the end-of-stream page, and closes the file if this writer opened it.
    ///
    /// - Parameter trimming: padding samples at the end of the last packet; see `OggOpusWriter.finish(trimming:)`.
    public func finish(trimming: Int = 0) throws(OggOpusError) {
        guard !writer.isFinished else { return }
        try emit(writer.finish(trimming: trimming))
        if ownsHandle {
            do {
                try handle.close()
            } catch {
                throw .io("close failed: \(error.localizedDescription)")
            }
        }
    }

    private func emit(_ bytes: [UInt8]) throws(OggOpusError) {
        guard !bytes.isEmpty else { return }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw .io("write failed: \(error.localizedDescription)")
        }
    }
}
