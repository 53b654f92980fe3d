import Foundation
import PTTClient
import PTTProtocol

/// A connected client whose inbound messages are recorded, so tests can wait for the next one that
/// matches, with a bounded timeout.
final class Peer: Sendable {
    let client: ControlClient
    private let recorder: Recorder

    init(client: ControlClient) {
        self.client = client
        let recorder = Recorder()
        self.recorder = recorder
        let messages = client.messages
        Task { await recorder.consume(messages) }
    }

    var welcome: Welcome { client.welcome }

    func request(_ message: ControlMessage) async throws -> ControlMessage {
        try await client.request(message)
    }

    /// Joins and returns the `joined` answer.
    func join(_ channel: String, name: String? = nil, receiveOnly: Bool = false, pushToken: String? = nil) async throws -> Joined {
        let reply = try await client.request(.join(Join(channel: channel, displayName: name, receiveOnly: receiveOnly, pushToken: pushToken)))
        guard case .joined(let joined) = reply else { throw TestFailure("expected joined, got \(reply.type)") }
        return joined
    }

    /// Waits for the next message (after the ones already taken) that matches; earlier non-matching ones are skipped.
    func next(timeout: Duration = TestTimeouts.eventWait, _ what: String = "message", where predicate: @escaping @Sendable (ControlMessage) -> Bool) async throws -> ControlMessage {
        try await recorder.next(timeout: timeout, what: what, where: predicate)
    }

    /// Waits for the next message of a `type`.
    func next(_ type: String, timeout: Duration = TestTimeouts.eventWait) async throws -> ControlMessage {
        try await next(timeout: timeout, type) { $0.type == type }
    }

    /// Messages received and not yet taken by `next`.
    func pending() async -> [ControlMessage] { await recorder.pending() }

    /// A request that goes through the server's control plane: once answered, every event the plane sent
    /// this peer before has arrived.
    func barrier() async throws {
        do {
            _ = try await client.request(.leave(Leave(channel: "barrier-\(UUID().uuidString)")))
        } catch ControlClientError.refused(let error) where error.code == .noSuchChannel {
            return
        }
    }

    /// Completes when the server has closed the connection (or times out).
    func waitClosed(timeout: Duration = TestTimeouts.eventWait) async throws {
        try await recorder.waitFinished(timeout: timeout)
    }

    func close() async { await client.close() }
}

actor Recorder {
    private var buffer: [ControlMessage] = []
    private var cursor = 0
    private var finished = false
    private var waiters: [(id: UUID, predicate: @Sendable (ControlMessage) -> Bool, continuation: CheckedContinuation<ControlMessage, Error>)] = []
    private var finishWaiters: [(id: UUID, continuation: CheckedContinuation<Void, Error>)] = []

    func consume(_ stream: AsyncStream<ControlMessage>) async {
        for await message in stream {
            buffer.append(message)
            serve()
        }
        finished = true
        for waiter in finishWaiters { waiter.continuation.resume() }
        finishWaiters.removeAll()
        for waiter in waiters { waiter.continuation.resume(throwing: TestFailure("connection closed while waiting; unread: \(unread())")) }
        waiters.removeAll()
    }

    private func unread() -> String { buffer[cursor...].map(\.type).joined(separator: ", ") }

    private func serve() {
        while let first = waiters.first {
            guard let index = buffer[cursor...].firstIndex(where: first.predicate) else { return }
            cursor = index + 1
            waiters.removeFirst()
            first.continuation.resume(returning: buffer[index])
        }
    }

    func pending() -> [ControlMessage] { Array(buffer[cursor...]) }

    func next(timeout: Duration, what: String, where predicate: @escaping @Sendable (ControlMessage) -> Bool) async throws -> ControlMessage {
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
            finishWaiters.remove(at: index).continuation.resume(throwing: TestFailure("timed out waiting for the connection to close"))
        }
    }

    func waitFinished(timeout: Duration) async throws {
        if finished { return }
        let id = UUID()
        Task { [weak self] in
            try? await Task.sleep(for: timeout.scaled)
            await self?.expire(id, what: "close")
        }
        try await withCheckedThrowingContinuation { continuation in finishWaiters.append((id, continuation)) }
    }
}
