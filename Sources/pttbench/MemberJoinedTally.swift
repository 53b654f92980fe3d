#if os(Linux)
import NIOCore

/// `member-joined` events of one channel, counted as every bench member reads them, and a wait for the count to
/// reach a target. All members' connections run on one event loop, and so does everything here: no locks, and the
/// time a target is reached is taken when the frame that reached it is read, not when a waiting task wakes.
final class MemberJoinedTally: @unchecked Sendable {
    // @unchecked: every mutable field is touched on `eventLoop` only (asserted).
    let eventLoop: EventLoop
    /// The counted channel's UUID between quotes, as it appears in a frame.
    let channelToken: [UInt8]
    private var count = 0
    private var waiter: Waiter?

    private struct Waiter {
        var target: Int
        var promise: EventLoopPromise<ContinuousClock.Instant>
        var timer: Scheduled<Void>
    }

    init(eventLoop: EventLoop, channelID: String) {
        self.eventLoop = eventLoop
        self.channelToken = Array("\"\(channelID)\"".utf8)
    }

    /// Called by a member's handler for each counted frame.
    func record() {
        eventLoop.assertInEventLoop()
        count += 1
        if let waiter, count >= waiter.target {
            self.waiter = nil
            waiter.timer.cancel()
            waiter.promise.succeed(.now)
        }
    }

    /// Succeeds with the time the count reached `target` (now, if it already has), or fails after `timeout`.
    /// One wait at a time: a new one fails the previous.
    func wait(until target: Int, timeout: TimeAmount) -> EventLoopFuture<ContinuousClock.Instant> {
        eventLoop.preconditionInEventLoop()
        if let previous = waiter {
            waiter = nil
            previous.timer.cancel()
            previous.promise.fail(BenchError("superseded"))
        }
        if count >= target { return eventLoop.makeSucceededFuture(.now) }
        let promise = eventLoop.makePromise(of: ContinuousClock.Instant.self)
        waiter = Waiter(target: target, promise: promise, timer: giveUp(after: timeout, promise))
        return promise.futureResult
    }

    /// Moves the current wait's deadline to `timeout` from now.
    func shortenWait(to timeout: TimeAmount) {
        eventLoop.preconditionInEventLoop()
        guard let current = waiter else { return }
        current.timer.cancel()
        waiter?.timer = giveUp(after: timeout, current.promise)
    }

    /// Fails the current wait, if any (its join failed: nothing will complete it).
    func cancelWait(_ reason: String) {
        eventLoop.preconditionInEventLoop()
        guard let current = waiter else { return }
        waiter = nil
        current.timer.cancel()
        current.promise.fail(BenchError(reason))
    }

    private func giveUp(
        after timeout: TimeAmount, _ promise: EventLoopPromise<ContinuousClock.Instant>
    ) -> Scheduled<Void> {
        eventLoop.scheduleTask(in: timeout) { [self] in
            guard let waiter, waiter.promise.futureResult === promise.futureResult else { return }
            self.waiter = nil
            waiter.promise.fail(BenchError("\(count) of \(waiter.target) member-joined after the wait's limit"))
        }
    }

    /// The count so far (from any thread: hops to the loop).
    func current() async throws -> Int {
        try await eventLoop.submit { self.count }.get()
    }
}
#endif
