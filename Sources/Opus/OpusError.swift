internal import COpus

/// An error reported by libopus (or by this wrapper on libopus's behalf).
///
/// `code` is one of libopus's negative `OPUS_*` status codes; the description
/// carries libopus's own text for it (`opus_strerror`) plus, when available,
/// what this wrapper was doing.
///
/// Two errors compare equal when their codes are equal; `context` is
/// diagnostic text only. That lets callers match on the static constants:
///
/// ```swift
/// #expect(throws: OpusError.badArgument) { try OpusEncoder(sampleRate: 44_100) }
/// ```
public struct OpusError: Error, CustomStringConvertible, Equatable, Hashable, Sendable {
    /// The libopus status code (`OPUS_BAD_ARG`, `OPUS_INVALID_PACKET`, ...). Always negative.
    public let code: Int32

    /// What the wrapper was doing when the error happened, if known.
    public let context: String?

    /// Wraps a libopus status code.
    public init(code: Int32, context: String? = nil) {
        self.code = code
        self.context = context
    }

    /// One or more invalid or out of range arguments (`OPUS_BAD_ARG`).
    public static let badArgument = OpusError(code: OPUS_BAD_ARG)
    /// Not enough bytes (or samples) allocated in the output buffer (`OPUS_BUFFER_TOO_SMALL`).
    public static let bufferTooSmall = OpusError(code: OPUS_BUFFER_TOO_SMALL)
    /// An internal libopus error (`OPUS_INTERNAL_ERROR`).
    public static let internalError = OpusError(code: OPUS_INTERNAL_ERROR)
    /// The compressed data is corrupted (`OPUS_INVALID_PACKET`).
    public static let invalidPacket = OpusError(code: OPUS_INVALID_PACKET)
    /// Invalid or unsupported request number (`OPUS_UNIMPLEMENTED`).
    public static let unimplemented = OpusError(code: OPUS_UNIMPLEMENTED)
    /// An encoder or decoder structure is invalid or already freed (`OPUS_INVALID_STATE`).
    public static let invalidState = OpusError(code: OPUS_INVALID_STATE)
    /// Memory allocation failed (`OPUS_ALLOC_FAIL`).
    public static let allocationFailed = OpusError(code: OPUS_ALLOC_FAIL)

    /// libopus's text for `code` (`opus_strerror`), e.g. "invalid argument".
    public var message: String {
        String(cString: opus_strerror(code))
    }

    public var description: String {
        if let context {
            return "opus: \(message) (\(context))"
        }
        return "opus: \(message)"
    }

    public static func == (lhs: OpusError, rhs: OpusError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension OpusError {
    /// Returns `status` unchanged when it is not an error, otherwise throws it.
    @inline(__always)
    static func check(_ status: Int32, _ context: @autoclosure () -> String) throws(OpusError) -> Int32 {
        if status < 0 {
            throw OpusError(code: status, context: context())
        }
        return status
    }
}
