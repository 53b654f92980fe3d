import AudioFiles

/// The WAV reader: the input is read whole and in 5-byte chunks, and both readings must agree.
enum WAVFuzz {
    struct Reading: Equatable {
        var format: WAVFormat?
        var samples: [Int16] = []
        var failed = false
        var declaredDataBytes: Int?
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = [UInt8](input)
        let whole = read(bytes, chunk: max(bytes.count, 1), maxFrames: .max)
        let chunked = read(bytes, chunk: 5, maxFrames: 3)
        precondition(whole == chunked, "reading in chunks gave a different result")
        if let format = whole.format {
            precondition(whole.samples.count % format.channelCount == 0, "a partial frame was returned")
        }
        if let declared = whole.declaredDataBytes {
            precondition(whole.samples.count * 2 <= declared, "more samples than the data chunk holds")
        }
    }

    static func read(_ bytes: [UInt8], chunk: Int, maxFrames: Int) -> Reading {
        var reader = WAVReader()
        var reading = Reading()
        var offset = 0
        do {
            repeat {
                let end = min(offset + chunk, bytes.count)
                reader.feed(bytes[offset..<end])
                offset = end
                while let samples = try reader.nextSamples(maxFrames: maxFrames) { reading.samples += samples }
            } while offset < bytes.count
            try reader.finishInput()
        } catch {
            reading.failed = true
        }
        reading.format = reader.format
        reading.declaredDataBytes = reader.declaredDataBytes
        return reading
    }
}
