/// Why a WAV stream could not be read or written.
public enum WAVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input does not start with `RIFF`.
    case notRIFF
    /// A RIFF file, but of another form than `WAVE` (e.g. AVI).
    case notWAVE
    /// The headers contradict themselves or the chunk layout is impossible.
    case badFormat(String)
    /// A well-formed WAV this implementation does not read: anything but 16-bit integer PCM
    /// (8/24/32-bit, float, A-law, ...), more than two channels, big-endian RIFX or RF64.
    case unsupportedFormat(String)
    /// The input ended before the `data` chunk began.
    case truncated(String)
    /// The caller passed something that cannot be written (e.g. a partial frame).
    case invalidArgument(String)
    /// Opening, reading, writing or seeking a file failed; the text is the system's reason.
    case io(String)

    public var description: String {
        switch self {
        case .notRIFF: "not a WAV file (no RIFF header)"
        case .notWAVE: "a RIFF file, but not WAVE"
        case .badFormat(let why): "malformed WAV: \(why)"
        case .unsupportedFormat(let why): "unsupported WAV: \(why); only 16-bit PCM, mono or stereo, is supported"
        case .truncated(let why): "truncated WAV: \(why)"
        case .invalidArgument(let why): "invalid argument: \(why)"
        case .io(let why): "I/O error: \(why)"
        }
    }
}
