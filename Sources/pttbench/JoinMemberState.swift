#if os(Linux)
/// What one join-bench member's connection is waiting for, and what to do with each frame it reads. No I/O:
/// `JoinMemberHandler` runs the actions.
struct JoinMemberState {
    enum Phase: Equatable {
        case awaitingWelcome
        case ready
        /// A `join` with this id is out.
        case awaitingJoined(re: Int)
        case failed(String)
    }

    enum Action: Equatable {
        case none
        /// A `member-joined` of the counted channel.
        case countMemberJoined
        case acknowledgeHeartbeat(seq: UInt64)
        case welcomed
        case joined(memberEvents: Bool?)
        /// The connection cannot go on (or the request was refused): fail what waits, and close.
        case fail(String)
    }

    private(set) var phase = Phase.awaitingWelcome

    /// A `join` with id `re` may be written now (nil), or why not.
    mutating func joinSent(re: Int) -> String? {
        switch phase {
        case .ready:
            phase = .awaitingJoined(re: re)
            return nil
        case .failed(let reason): return reason
        case .awaitingWelcome: return "join before welcome"
        case .awaitingJoined: return "join while another join is out"
        }
    }

    mutating func received(_ frame: InboundFrame) -> Action {
        switch frame {
        case .memberJoined(let counted):
            return counted ? .countMemberJoined : .none
        case .heartbeat(let seq):
            return .acknowledgeHeartbeat(seq: seq)
        case .other:
            return .none
        case .welcome:
            guard phase == .awaitingWelcome else { return fail("a second welcome") }
            phase = .ready
            return .welcomed
        case .joined(let re, let memberEvents):
            guard case .awaitingJoined(let expected) = phase, re == expected else {
                // `joined` without `re` is an event (not sent in these runs); with another `re`, a mix-up.
                return re == nil ? .none : fail("joined with re \(re!) while \(phase)")
            }
            phase = .ready
            return .joined(memberEvents: memberEvents)
        case .error(let re, let code, let message):
            switch phase {
            case .awaitingWelcome: return fail("hello refused: \(code): \(message)")
            case .awaitingJoined(let expected) where re == expected: return fail("join refused: \(code): \(message)")
            default: return fail("error from pttd: \(code): \(message)")
            }
        }
    }

    /// The connection closed (by either side) or failed.
    mutating func closed(_ reason: String) -> Action {
        if case .failed = phase { return .none }
        return fail(reason)
    }

    private mutating func fail(_ reason: String) -> Action {
        phase = .failed(reason)
        return .fail(reason)
    }
}
#endif
