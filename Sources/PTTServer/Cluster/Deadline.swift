import NIOConcurrencyHelpers

/// Waits for `operation` at most `limit`: its result, or nil when the time ran out first.
///
/// The operation runs in a task of its own, cancelled at the deadline and then left to end when it will. That is the
/// point: an await that does not end on cancellation (a query on a database connection that went silent) would hold
/// a task group, and whoever waits for the group, for as long as it lasts.
func withinDeadline<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    let settled = NIOLockedValueBox(false)
    let first: @Sendable () -> Bool = {
        settled.withLockedValue { done in
            defer { done = true }
            return !done
        }
    }
    return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let work = Task {
            let value = await operation()
            if first() { continuation.resume(returning: value) }
        }
        // Sleeps the whole limit even when the work answers sooner: a sleeping task costs a timer, not a thread.
        Task {
            try? await Task.sleep(for: limit)
            guard first() else { return }
            work.cancel()
            continuation.resume(returning: nil)
        }
    }
}
