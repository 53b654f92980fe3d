import PTTCore

/// One request's change to the channel directory (a join, a leave, a push token, an operator's change), waiting for
/// its turn in ``DirectoryWrites``.
///
/// It is planned at its turn, against the directory as stored with the operations before it in the same write
/// applied, so a plan never builds on a change that might still fail. Planning has no other effect: a write that
/// meets another node's change plans its operations again.
struct DirectoryOperation {
    /// Plans the change against `directory`, changing it as the change would. Throws to refuse the operation:
    /// ``refused`` answers then, and the operation is dropped from the write.
    var plan: (inout ChannelDirectory) throws -> PlannedChange
    /// Answers a refused operation (the error `plan` threw).
    var refused: (any Error) -> Void
}

/// What an operation changes, and what it does once the change is stored, or failed to be.
struct PlannedChange {
    var changes: [DirectoryChange]
    /// Runs once the write carrying `changes` is stored and applied, in the order the operations were made.
    var stored: () -> Void
    /// The write failed and nothing changed: answers with the error.
    var failed: (any Error) -> Void
    /// A join (``ChannelMetrics/joinBatches`` counts the writes that store joins).
    var isJoin = false

    /// A change that needs nothing stored (asked for what already is): `stored` runs in its turn all the same.
    static func nothing(then stored: @escaping () -> Void) -> PlannedChange {
        PlannedChange(changes: [], stored: stored, failed: { _ in stored() })
    }
}
