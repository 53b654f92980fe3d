import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import PTTKit
import PTTProtocol

/// A joined member through PTTKit's client: what `ptt talk` and `ptt listen` work with, as an app would.
final class MemberConnection: Sendable {
    let client: PTTClient
    let handle: ChannelHandle
    let channel: String
    private let revoked = NIOLockedValueBox<String?>(nil)
    private let granted = NIOLockedValueBox(false)
    private let replayEnd = NIOLockedValueBox<(burst: Int64, outcome: ReplayOutcome)?>(nil)

    private init(client: PTTClient, handle: ChannelHandle, channel: String) {
        self.client = client
        self.handle = handle
        self.channel = channel
    }

    static func open(
        _ options: ConnectionOptions, channel: String, receiveOnly: Bool = false, jitterMs: Int? = nil
    ) async throws -> MemberConnection {
        let client = try await options.connectMember(jitterMs: jitterMs)
        do {
            let handle = try await client.join(channel, receiveOnly: receiveOnly)
            let member = MemberConnection(client: client, handle: handle, channel: channel)
            member.watch()
            return member
        } catch {
            stderr("ptt: \(error)")
            await client.close()
            throw ExitCode(1)
        }
    }

    /// Notes the floor events this command acts on, in the background.
    private func watch() {
        let events = client.events
        let id = handle.id
        Task { [revoked, granted, replayEnd] in
            for await event in events {
                switch event {
                case .floorRevoked(let channel, let cause) where channel.id == id:
                    revoked.withLockedValue { $0 = cause.description }
                case .floorGranted(let channel, _) where channel.id == id:
                    granted.withLockedValue { $0 = true }
                case .replayEnded(let channel, let burst, let outcome) where channel.id == id:
                    replayEnd.withLockedValue { $0 = (burst, outcome) }
                case .scanSwitched(let hearing):
                    stderr("ptt: hearing \(hearing?.name ?? "nothing")")
                default: break
                }
            }
        }
    }

    func revokedCause() -> String? { revoked.withLockedValue { $0 } }

    /// The `replay-ended` outcome, once it came.
    func replayEnded() -> String? { replayEnd.withLockedValue { $0?.outcome.rawValue } }

    /// Asks to hear a recorded burst of the channel again (`nil`: the last one); exits 1 if refused.
    func replay(_ burst: Int64?) async throws -> Replaying {
        do {
            return try await handle.replay(burst: burst)
        } catch PTTClientError.refused(_, let message) {
            stderr("ptt: cannot replay: \(message)")
            throw ExitCode(1)
        }
    }

    /// Asks for the floor; waits in the queue if queued; exits 2 if denied, 3 if the turn does not come in time.
    func takeFloor(waitingAtMost seconds: Double) async throws {
        switch try await handle.requestFloor() {
        case .granted: return
        case .denied(let cause):
            stderr("ptt: floor denied: \(cause)")
            throw ExitCode(2)
        case .queued(let position):
            stderr("ptt: queued for the floor at position \(position)")
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if granted.withLockedValue({ $0 }) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        try? await handle.releaseFloor()
        stderr("ptt: gave up waiting for the floor after \(seconds) s")
        throw ExitCode(3)
    }

    func close(leave: Bool) async {
        if leave { try? await handle.leave() }
        await client.close()
    }
}
