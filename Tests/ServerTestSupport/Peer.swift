import Foundation
import PTTKit
import PTTProtocol
import TestSupport

/// A connected client whose inbound messages are recorded, so tests can wait for the next one that
/// matches, with a bounded timeout.
public final class Peer: Sendable {
    public let client: ControlClient
    private let recorder: Recorder<ControlMessage>

    public init(client: ControlClient) {
        self.client = client
        let recorder = Recorder<ControlMessage>(describe: \.type)
        self.recorder = recorder
        let messages = client.messages
        Task { await recorder.consume(messages) }
    }

    public var welcome: Welcome { client.welcome }

    public func request(_ message: ControlMessage) async throws -> ControlMessage {
        try await client.request(message)
    }

    /// Joins and returns the `joined` answer.
    public func join(
        _ channel: String, name: String? = nil, receiveOnly: Bool = false, pushToken: String? = nil
    ) async throws -> Joined {
        let reply = try await client.request(
            .join(Join(channel: channel, displayName: name, receiveOnly: receiveOnly, pushToken: pushToken)))
        guard case .joined(let joined) = reply else { throw TestFailure("expected joined, got \(reply.type)") }
        return joined
    }

    /// Waits for the next message (after the ones already taken) that matches; earlier non-matching ones are skipped.
    public func next(
        timeout: Duration = TestTimeouts.eventWait, _ what: String = "message",
        where predicate: @escaping @Sendable (ControlMessage) -> Bool
    ) async throws -> ControlMessage {
        try await recorder.next(timeout: timeout, what: what, where: predicate)
    }

    /// Waits for the next message of a `type`.
    public func next(_ type: String, timeout: Duration = TestTimeouts.eventWait) async throws -> ControlMessage {
        try await next(timeout: timeout, type) { $0.type == type }
    }

    /// Messages received and not yet taken by `next`.
    public func pending() async -> [ControlMessage] { await recorder.pending() }

    /// A request that goes through the server's control plane: once answered, every event the plane sent
    /// this peer before has arrived.
    public func barrier() async throws {
        do {
            _ = try await client.request(.leave(Leave(channel: "barrier-\(UUID().uuidString)")))
        } catch ControlClientError.refused(let error) where error.code == .noSuchChannel {
            return
        }
    }

    /// Completes when the server has closed the connection (or times out).
    public func waitClosed(timeout: Duration = TestTimeouts.eventWait) async throws {
        try await recorder.waitFinished(timeout: timeout)
    }

    public func close() async { await client.close() }
}
