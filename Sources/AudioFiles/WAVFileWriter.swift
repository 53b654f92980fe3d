import Foundation

/// Writes a 16-bit PCM WAV file, or a WAV stream to a pipe (e.g. standard output).
///
/// The header goes out first with sizes 0xFFFFFFFF; `finish` rewrites it with the real sizes
/// if the output can seek (a regular file), and leaves it otherwise (a pipe), which readers
/// take as "until the end of the input".
public final class WAVFileWriter {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private let headerOffset: UInt64?
    private var writer: WAVWriter
    private var finished = false

    /// Creates (or truncates) a file and writes the header.
    ///
    /// - Throws: `.io` with the system's reason.
    public convenience init(path: String, format: WAVFormat) throws(WAVError) {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw .io("cannot create \(path)")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        } catch {
            throw .io("cannot open \(path): \(error.localizedDescription)")
        }
        try self.init(handle: handle, format: format, ownsHandle: true)
    }

    /// Writes to an open handle from its current position; the handle stays open after `finish`.
    ///
    /// - Throws: `.io` if writing the header fails.
    public convenience init(handle: FileHandle, format: WAVFormat) throws(WAVError) {
        try self.init(handle: handle, format: format, ownsHandle: false)
    }

    private init(handle: FileHandle, format: WAVFormat, ownsHandle: Bool) throws(WAVError) {
        self.handle = handle
        self.ownsHandle = ownsHandle
        writer = WAVWriter(format: format)
        // A pipe cannot report its offset: then the sizes stay "unknown".
        headerOffset = try? handle.offset()
        try emit(writer.streamingHeader)
    }

    /// The sample format.
    public var format: WAVFormat { writer.format }
    /// Frames written so far.
    public var frameCount: Int { writer.dataByteCount / writer.format.bytesPerFrame }
    /// Whether `finish` will be able to write the real sizes into the header.
    public var isSeekable: Bool { headerOffset != nil }

    /// Appends interleaved samples (a whole number of frames).
    public func write(_ samples: some Collection<Int16>) throws(WAVError) {
        guard !finished else { throw .invalidArgument("samples written after finish()") }
        try emit(writer.encode(samples))
    }

    /// Patches the header sizes when the output is seekable, and closes the file if this
    /// writer opened it. Later calls do nothing.
    public func finish() throws(WAVError) {
        guard !finished else { return }
        finished = true
        do {
            if let headerOffset {
                let end = try handle.offset()
                try handle.seek(toOffset: headerOffset)
                try handle.write(contentsOf: writer.finalHeader)
                try handle.seek(toOffset: end)
            }
            if ownsHandle {
                try handle.close()
            }
        } catch {
            throw .io("finishing the WAV header failed: \(error.localizedDescription)")
        }
    }

    private func emit(_ bytes: [UInt8]) throws(WAVError) {
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw .io("write failed: \(error.localizedDescription)")
        }
    }
}
