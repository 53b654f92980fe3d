import PTTProtocol

/// What a control connection does next, decided without sockets, timers or the plane: `hello` first and
/// within its deadline, heartbeats and their misses, how many requests may wait for the plane before reading
/// pauses, and closing after a protocol violation once earlier requests are answered.
///
/// ``ControlSessionHandler`` feeds it every event and carries out the ``Action`` it returns, as
/// postgres-nio's connection handler does with its state machine.
struct ControlSessionStateMachine {
    enum Phase: Equatable {
        /// The connection is not active yet.
        case idle
        /// Active; the hello deadline runs.
        case awaitingHello
        /// `hello` arrived and went to the plane; the plane has not said it succeeded.
        case helloReceived
        /// `hello` succeeded: heartbeats run.
        case authenticated
        /// Closing: nothing more is read or sent but the answers already owed and the closing `error`.
        case closing
    }

    /// A frame from the client, as far as this machine cares.
    enum Frame: Equatable {
        case hello
        case heartbeat(seq: UInt64)
        case heartbeatAck(seq: UInt64)
        /// Any other message: a request for the plane.
        case request
    }

    /// Why the connection is closed after a protocol violation.
    struct Rejection: Equatable {
        var code: ErrorCode
        var message: String
    }

    enum Action: Equatable {
        case none
        /// The connection became active: count it, tell the plane, arm the hello deadline.
        case start
        /// Hand `hello` to the plane and disarm the hello deadline (a hello in time waits for the plane).
        case forwardHello
        /// Hand a request to the plane.
        case forward
        case answerHeartbeat(seq: UInt64)
        /// A heartbeat was acknowledged: tell the plane (last seen).
        case heartbeatAcknowledged
        /// `hello` succeeded: disarm the hello deadline; start heartbeats if `startHeartbeats`.
        case authenticated(startHeartbeats: Bool)
        /// Send heartbeat `seq`; `missedOne`: the previous one was not acknowledged.
        case sendHeartbeat(seq: UInt64, missedOne: Bool)
        /// Too many heartbeats missed: stop heartbeats, close with `heartbeat-timeout`, the plane forgets the session now.
        case closeForMissedHeartbeats(missed: Int)
        /// No hello in time: close at once.
        case closeForHelloTimeout
        /// A protocol violation: stop heartbeats, count and log it, close at once with its `error`.
        case reject(Rejection)
        /// A protocol violation after requests already handed to the plane: as ``reject(_:)``, but the `error`
        /// goes out once they are answered (``closeAfterAnswers(_:)``), or at the grace deadline.
        case rejectAfterAnswers(Rejection)
        /// The last answer owed before a rejection went out: close with its `error` now.
        case closeAfterAnswers(ErrorFrame)
        /// Read from the socket.
        case read
    }

    let maxRequestsInFlight: Int
    let heartbeatMissLimit: Int
    private(set) var phase = Phase.idle
    /// Requests handed to the plane and not finished.
    private(set) var requestsInFlight = 0
    /// A read NIO asked for while too many requests waited.
    private var readPending = false
    private var pendingReject: ErrorFrame?
    private var heartbeatSeq: UInt64 = 0
    private(set) var unacknowledged = 0

    init(maxRequestsInFlight: Int, heartbeatMissLimit: Int) {
        self.maxRequestsInFlight = maxRequestsInFlight
        self.heartbeatMissLimit = heartbeatMissLimit
    }

    private var sawHello: Bool { phase == .helloReceived || phase == .authenticated }

    mutating func channelActive() -> Action {
        guard phase == .idle else { return .none }
        phase = .awaitingHello
        return .start
    }

    mutating func helloDeadlinePassed() -> Action {
        guard phase == .awaitingHello else { return .none }
        phase = .closing
        return .closeForHelloTimeout
    }

    mutating func received(_ frame: Frame) -> Action {
        guard phase != .closing, phase != .idle else { return .none }
        switch frame {
        case .hello:
            if sawHello {
                return reject(
                    Rejection(code: .alreadyAuthenticated, message: "hello was already sent on this connection"))
            }
            phase = .helloReceived
            requestsInFlight += 1
            return .forwardHello
        case .heartbeat(let seq):
            guard sawHello else { return notAuthenticated() }
            return .answerHeartbeat(seq: seq)
        case .heartbeatAck(let seq):
            guard sawHello else { return notAuthenticated() }
            // Only an acknowledgement of a heartbeat actually sent counts; an older one still proves the
            // client was alive then.
            guard seq <= heartbeatSeq, heartbeatSeq - seq < UInt64(unacknowledged) else { return .none }
            unacknowledged = Int(heartbeatSeq - seq)
            return .heartbeatAcknowledged
        case .request:
            guard sawHello else { return notAuthenticated() }
            requestsInFlight += 1
            return .forward
        }
    }

    /// The frame decoder refused what the client sent (too large, malformed).
    mutating func frameError(_ rejection: Rejection) -> Action {
        reject(rejection)
    }

    mutating func helloSucceeded() -> Action {
        guard phase != .closing else { return .authenticated(startHeartbeats: false) }
        // Heartbeats start with the first success only.
        let start = phase != .authenticated
        phase = .authenticated
        return .authenticated(startHeartbeats: start)
    }

    mutating func heartbeatDue() -> Action {
        guard phase != .closing else { return .none }
        let missedOne = unacknowledged > 0
        if unacknowledged >= heartbeatMissLimit {
            phase = .closing
            return .closeForMissedHeartbeats(missed: unacknowledged)
        }
        heartbeatSeq += 1
        unacknowledged += 1
        return .sendHeartbeat(seq: heartbeatSeq, missedOne: missedOne)
    }

    /// NIO asks to read: read, unless too many requests wait for the plane (back-pressure) or the
    /// connection is closing.
    mutating func readRequested() -> Action {
        if requestsInFlight >= maxRequestsInFlight || phase == .closing {
            readPending = true
            return .none
        }
        return .read
    }

    mutating func requestDone() -> Action {
        requestsInFlight -= 1
        if requestsInFlight == 0, let error = pendingReject {
            pendingReject = nil
            return .closeAfterAnswers(error)
        }
        if readPending, phase != .closing, requestsInFlight < maxRequestsInFlight / 2 {
            readPending = false
            return .read
        }
        return .none
    }

    private mutating func notAuthenticated() -> Action {
        reject(Rejection(code: .notAuthenticated, message: "the first frame must be hello"))
    }

    private mutating func reject(_ rejection: Rejection) -> Action {
        guard phase != .closing else { return .none }
        phase = .closing
        guard requestsInFlight > 0 else { return .reject(rejection) }
        pendingReject = ErrorFrame(code: rejection.code, message: rejection.message)
        return .rejectAfterAnswers(rejection)
    }
}
