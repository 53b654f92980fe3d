import Foundation

/// Reads a 16-bit PCM WAV file, or a WAV stream from a pipe (e.g. standard input from
/// `arecord -f S16_LE`), a chunk at a time.
///
/// ```swift
/// let reader = WAVFileReader(handle: .standardInput)
/// let format = try reader.readHeader()
/// while let samples = try reader.read() { ... }   // interleaved Int16; nil at the end
/// ```
///
/// Reads block the calling thread.
public final class WAVFileReader {
    private var input: ChunkedInput
    private var reader = WAVReader()

    /// Opens a file for reading.
    ///
    /// - Throws: `.io` with the system's reason.
    public convenience init(path: String, chunkSize: Int = 16_384) throws(WAVError) {
        do {
            try self.init(handle: FileHandle(forReadingFrom: URL(fileURLWithPath: path)), chunkSize: chunkSize)
        } catch {
            throw .io("cannot open \(path): \(error.localizedDescription)")
        }
    }

    /// Reads from an open handle from its current position.
    public init(handle: FileHandle, chunkSize: Int = 16_384) {
        self.input = ChunkedInput(handle: handle, chunkSize: chunkSize)
    }

    /// The sample format, once the header has been read.
    public var format: WAVFormat? { reader.isInData ? reader.format : nil }

    /// Reads up to the start of the audio data.
    ///
    /// - Throws: any `WAVReader` error; `.truncated` if the input ends first; `.io`.
    public func readHeader() throws(WAVError) -> WAVFormat {
        while true {
            if let format = try reader.readHeader() { return format }
            guard try readChunk() else {
                try reader.finishInput()
                throw .truncated("input ended before the data chunk")  // finishInput throws first
            }
        }
    }

    /// Up to `maxFrames` frames of interleaved samples, or `nil` at the end of the audio.
    public func read(maxFrames: Int = 4_096) throws(WAVError) -> [Int16]? {
        while true {
            if let samples = try reader.nextSamples(maxFrames: maxFrames) { return samples }
            guard try readChunk() else {
                try reader.finishInput()
                return nil
            }
        }
    }

    /// Feeds the next chunk; `false` at end of input or once the data chunk is complete.
    private func readChunk() throws(WAVError) -> Bool {
        if reader.isComplete {
            input.finish()  // do not read (possibly forever, from a pipe) past the audio
            return false
        }
        let data: Data?
        do { data = try input.next() } catch { throw .io(error.reason) }
        guard let data else { return false }
        reader.feed(data)
        return true
    }
}

extension WAVReader {
    /// Reads a whole WAV file.
    ///
    /// - Throws: `.io` if the file cannot be read, or any reader error.
    public static func readFile(path: String) throws(WAVError) -> (format: WAVFormat, samples: [Int16]) {
        let file = try WAVFileReader(path: path)
        let format = try file.readHeader()
        var samples: [Int16] = []
        while let chunk = try file.read(maxFrames: 1 << 16) {
            samples += chunk
        }
        return (format, samples)
    }
}
