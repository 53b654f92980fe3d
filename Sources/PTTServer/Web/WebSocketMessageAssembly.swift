import NIOCore
import NIOWebSocket

/// RFC 6455's rules for the frames a client sends, as a pure value: frames in, whole messages (or the reason to
/// fail the connection) out. ``WebSocketMessageHandler`` runs it on a connection.
///
/// - Every frame from a client must be masked (RFC 6455 5.1) and, no extension being negotiated, have RSV1–3
///   clear (5.2); a reserved opcode, a continuation with no message begun, or a new message inside a fragmented
///   one is a protocol error too (5.4). Each fails the connection with 1002.
/// - A message is at most `maxMessageBytes` (64 KiB) whether it comes in one frame or in fragments, which are
///   reassembled (at most `maxFragments` of them): beyond either, the connection fails with 1009.
/// - Control frames (ping, pong, close) may come between a message's fragments and are passed on at once.
struct WebSocketMessageAssembly {
    /// Why the connection fails: the close status, the reason counted in `ptt_control_frames_rejected_total`,
    /// and a few words for the close frame and the log.
    struct Failure: Equatable {
        var code: WebSocketErrorCode
        var rejection: FrameRejection
        var reason: String

        static func protocolError(_ reason: String) -> Failure {
            Failure(code: .protocolError, rejection: .malformedFrame, reason: reason)
        }

        static func tooLarge(_ reason: String) -> Failure {
            Failure(code: .messageTooLarge, rejection: .frameTooLarge, reason: reason)
        }
    }

    enum Outcome {
        /// A whole message (unmasked, `fin` set, the first fragment's opcode) or a control frame.
        case deliver(WebSocketFrame)
        /// A fragment was kept, or the connection has failed already: nothing to do.
        case wait
        /// Fail the connection.
        case fail(Failure)
    }

    let maxMessageBytes: Int
    let maxFragments: Int
    private var partial: (opcode: WebSocketOpcode, data: ByteBuffer, fragments: Int)?
    private var failed = false

    init(maxMessageBytes: Int, maxFragments: Int = 64) {
        self.maxMessageBytes = maxMessageBytes
        self.maxFragments = maxFragments
    }

    mutating func received(_ frame: WebSocketFrame) -> Outcome {
        guard !failed else { return .wait }
        let outcome = check(frame)
        if case .fail = outcome {
            failed = true
            partial = nil
        }
        return outcome
    }

    /// The decoder in front refused the bytes (a frame over the size limit, a fragmented or long control frame).
    mutating func decoderFailed(_ error: NIOWebSocketError) -> Outcome {
        guard !failed else { return .wait }
        failed = true
        partial = nil
        switch error {
        case .invalidFrameLength: return .fail(.tooLarge("a frame over \(maxMessageBytes) bytes"))
        case .fragmentedControlFrame: return .fail(.protocolError("a fragmented control frame"))
        case .multiByteControlFrameLength: return .fail(.protocolError("a control frame over 125 bytes"))
        }
    }

    private mutating func check(_ frame: WebSocketFrame) -> Outcome {
        guard frame.maskKey != nil else { return .fail(.protocolError("an unmasked frame")) }
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            return .fail(.protocolError("reserved bits set with no extension agreed"))
        }
        switch frame.opcode {
        case .ping, .pong, .connectionClose:
            return .deliver(frame)
        case .text, .binary:
            guard partial == nil else { return .fail(.protocolError("a new message inside a fragmented one")) }
            guard !frame.fin else { return .deliver(frame) }
            partial = (frame.opcode, frame.unmaskedData, 1)
            return .wait
        case .continuation:
            guard var message = partial else { return .fail(.protocolError("a continuation with no message begun")) }
            partial = nil
            message.fragments += 1
            guard message.data.readableBytes + frame.length <= maxMessageBytes else {
                return .fail(.tooLarge("a message over \(maxMessageBytes) bytes in fragments"))
            }
            guard message.fragments <= maxFragments else {
                return .fail(.tooLarge("a message in more than \(maxFragments) fragments"))
            }
            var data = frame.unmaskedData
            message.data.writeBuffer(&data)
            guard frame.fin else {
                partial = message
                return .wait
            }
            return .deliver(WebSocketFrame(fin: true, opcode: message.opcode, data: message.data))
        default:
            return .fail(.protocolError("reserved opcode \(frame.opcode)"))
        }
    }
}
