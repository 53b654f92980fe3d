import Foundation

/// Records what arrives on a stream (a connection's messages) so a test can wait, with a bounded timeout,
/// for the next one that matches, skipping the ones it does not care about.
///
/// Every message is kept until the recorder is released; `next` moves a cursor past the one it returns,
/// so two waits never return the same message.
public actor Recorder<Message: Sendable> {
    private let describe: @Sendable (Message) -> String
    private var buffer: [Message] = []
    private var cursor = 0
    private var finished = false
    private var waiters:
        [(id: UUID, predicate: @Sendable (Message) -> Bool, continuation: CheckedContinuation<Message, Error>)] = []
    private var finishWaiters: [(id: UUID, continuation: CheckedContinuation<Void, Error>)] = []

    /// `describe` names a message in failure reports (the messages not yet taken).
    public init(describe: @escaping @Sendable (Message) -> String = { "\($0)" }) {
        self.describe = describe
    }

    /// Records `stream` until it finishes; waiters still waiting then fail.
    public func consume(_ stream: AsyncStream<Message>) async {
        for await message in stream {
            buffer.append(message)
            serve()
        }
        finished = true
        for waiter in finishWaiters { waiter.continuation.resume() }
        finishWaiters.removeAll()
        for waiter in waiters {
            waiter.continuation.resume(throwing: TestFailure("connection closed while waiting; unread: \(unread())"))
        }
        waiters.removeAll()
    }

    private func unread() -> String { buffer[cursor...].map(describe).joined(separator: ", ") }

    private func serve() {
        while let first = waiters.first {
            guard let index = buffer[cursor...].firstIndex(where: first.predicate) else { return }
            cursor = index + 1
            waiters.removeFirst()
            first.continuation.resume(returning: buffer[index])
        }
    }

    /// Messages received and not yet taken by `next`.
    public func pending() -> [Message] { Array(buffer[cursor...]) }

    /// The next message (after the ones already taken) that matches; earlier non-matching ones are skipped.
    /// Throws after `timeout` (scaled), or when the stream finishes first.
    public func next(
        timeout: Duration, what: String, where predicate: @escaping @Sendable (Message) -> Bool
    ) async throws -> Message {
        if let index = buffer[cursor...].firstIndex(where: predicate) {
            cursor = index + 1
            return buffer[index]
        }
        if finished { throw TestFailure("connection closed before \(what); unread: \(unread())") }
        let id = UUID()
        Task { [weak self] in
            try? await Task.sleep(for: timeout.scaled)
            await self?.expire(id, what: what)
        }
        return try await withCheckedThrowingContinuation { continuation in
            waiters.append((id, predicate, continuation))
        }
    }

    private func expire(_ id: UUID, what: String) {
        if let index = waiters.firstIndex(where: { $0.id == id }) {
            let waiter = waiters.remove(at: index)
            waiter.continuation.resume(throwing: TestFailure("timed out waiting for \(what); unread: \(unread())"))
        }
        if let index = finishWaiters.firstIndex(where: { $0.id == id }) {
            finishWaiters.remove(at: index).continuation.resume(
                throwing: TestFailure("timed out waiting for the connection to close"))
        }
    }

    /// Completes when the stream has finished; throws after `timeout` (scaled).
    public func waitFinished(timeout: Duration) async throws {
        if finished { return }
        let id = UUID()
        Task { [weak self] in
            try? await Task.sleep(for: timeout.scaled)
            await self?.expire(id, what: "close")
        }
        try await withCheckedThrowingContinuation { continuation in finishWaiters.append((id, continuation)) }
    }
}
