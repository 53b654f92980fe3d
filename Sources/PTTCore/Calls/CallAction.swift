/// What the server does for a ``CallBook`` event.
public enum CallAction: Sendable, Equatable {
    /// Tell the callee's connected devices and wake the others; `waiting`: the callee is in a burst.
    case ring(CallBook.Ringing, waiting: Bool)
    /// The caller's call is placed but held until the callee's burst ends (it rings then).
    case hold(CallBook.Ringing)
    /// Refuse a call before it rings.
    case refuse(CallRefusal)
    /// Make the call's channel and both memberships (the callee's on `device`), store them, and tell both sides.
    case connect(CallBook.Ringing, calleeDevice: String)
    /// End the call: tell both sides (and, for one that rang, the callee's devices); remove a connected call's
    /// channel. `by`: the user who hung up.
    case end(ChannelID, CallEnd, by: String?)
}

/// Why a call is refused before it rings.
public enum CallRefusal: Sendable, Equatable {
    /// The caller calls its own user.
    case callsItself
    /// The caller is already a side of a call.
    case callerBusy
    /// The callee is a side of another call.
    case calleeBusy
    /// ``CallConfiguration/maxRinging`` calls ring already.
    case tooManyRinging
}

/// Why a call ended (`call-ended.reason`).
public enum CallEnd: String, Sendable, Equatable, CaseIterable {
    case declined
    case noAnswer = "no-answer"
    case hungUp = "hung-up"
    case silence
    case unavailable
    case byOperator = "operator"
}
