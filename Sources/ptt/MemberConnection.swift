import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import PTTKit
import PTTProtocol

/// A joined member with its media session: what `ptt talk` and `ptt listen` work with.
final class MemberConnection: Sendable {
    let client: ControlClient
    let joined: Joined
    let media: MediaSession
    let channel: String
    private let revoked = NIOLockedValueBox<String?>(nil)
    private let events: NIOLockedValueBox<[ControlMessage]> = NIOLockedValueBox([])
    private let replayEnd = NIOLockedValueBox<ReplayEnded?>(nil)

    private init(client: ControlClient, joined: Joined, media: MediaSession, channel: String) {
        self.client = client; self.joined = joined; self.media = media; self.channel = channel
    }

    static func open(
        _ options: ConnectionOptions, channel: String, receiveOnly: Bool = false
    ) async throws -> MemberConnection {
        let (client, endpoint) = try await options.connectWithEndpoint()
        do {
            let suites = options.srtpSuites.isEmpty ? nil : options.srtpSuites
            let reply = try await client.request(
                .join(Join(channel: channel, receiveOnly: receiveOnly, srtpSuites: suites)))
            guard case .joined(let joined) = reply else { throw ControlClientError.unexpectedReply(reply.type) }
            let media = try await MediaSession.open(host: endpoint.host, parameters: joined.media)
            let member = MemberConnection(client: client, joined: joined, media: media, channel: channel)
            member.watch()
            return member
        } catch {
            stderr("ptt: \(error)")
            await client.close()
            throw ExitCode(1)
        }
    }

    /// Records floor events in the background.
    private func watch() {
        let stream = client.messages
        Task { [revoked, events, replayEnd] in
            for await message in stream {
                if case .floorRevoked(let r) = message { revoked.withLockedValue { $0 = r.cause } }
                if case .replayEnded(let e) = message { replayEnd.withLockedValue { $0 = e } }
                events.withLockedValue { $0.append(message) }
            }
        }
    }

    func revokedCause() -> String? { revoked.withLockedValue { $0 } }

    /// The `replay-ended` event, once it came.
    func replayEnded() -> ReplayEnded? { replayEnd.withLockedValue { $0 } }

    /// Asks to hear a recorded burst of the channel again (`nil`: the last one); exits 1 if refused.
    func replay(_ burst: Int64?) async throws -> Replaying {
        do {
            let answer = try await client.request(.replay(Replay(channel: channel, burst: burst)))
            guard case .replaying(let replaying) = answer else { throw ControlClientError.unexpectedReply(answer.type) }
            return replaying
        } catch ControlClientError.refused(let error) {
            stderr("ptt: cannot replay: \(error.message)")
            throw ExitCode(1)
        }
    }

    /// Asks for the floor; waits in the queue if queued; exits 2 if denied.
    func takeFloor(waitingAtMost seconds: Double) async throws {
        let answer = try await client.request(.floorRequest(FloorCommand(channel: channel)))
        switch answer {
        case .floorGranted: return
        case .floorDenied(let denied):
            stderr("ptt: floor denied: \(denied.cause)")
            throw ExitCode(2)
        case .floorQueued(let queued):
            stderr("ptt: queued for the floor at position \(queued.position)")
        default:
            throw ControlClientError.unexpectedReply(answer.type)
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let granted = events.withLockedValue { events -> Bool in
                defer { events.removeAll() }
                return events.contains { if case .floorGranted = $0 { true } else { false } }
            }
            if granted { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        client.send(.floorRelease(FloorCommand(channel: channel)))
        stderr("ptt: gave up waiting for the floor after \(seconds) s")
        throw ExitCode(3)
    }

    func close(leave: Bool) async {
        if leave { _ = try? await client.request(.leave(Leave(channel: channel)), timeout: .seconds(3)) }
        await media.close()
        await client.close()
    }
}
