/// Where a private call stands, in `GET /api/calls`.
public enum CallPhase: WireValue {
    /// The callee's devices are being told or woken.
    case ringing
    /// Held until the callee's burst ends (`calls.whileBusy: queue`): not rung yet.
    case held
    /// Answered: the two sides talk on the call's channel.
    case connected
    /// A value from a newer server.
    case unknown(String)

    public static let known: [CallPhase] = [.ringing, .held, .connected]

    public var rawValue: String {
        switch self {
        case .ringing: "ringing"
        case .held: "held"
        case .connected: "connected"
        case .unknown(let value): value
        }
    }
}

/// One private call in `GET /api/calls`.
public struct CallStatus: Codable, Sendable, Equatable {
    /// The call's id (a UUID): its channel's id once connected, and what `DELETE /api/calls/ID` names.
    public var id: String
    /// The calling user, and the display name of the membership the call was placed from.
    public var caller: String
    public var callerName: String
    /// The user called.
    public var callee: String
    public var phase: CallPhase
    /// When it was placed (ISO 8601).
    public var since: String
    /// Connected: whether someone talks on it now.
    public var talking: Bool?
    public init(
        id: String, caller: String, callerName: String, callee: String, phase: CallPhase, since: String,
        talking: Bool? = nil
    ) {
        self.id = id
        self.caller = caller
        self.callerName = callerName
        self.callee = callee
        self.phase = phase
        self.since = since
        self.talking = talking
    }
}
