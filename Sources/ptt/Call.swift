import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

/// `ptt call USER`: a private call, placed from one of this device's channels.
struct CallUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Ring one user for a private call; once answered, say a file and record the answer.",
        discussion: """
            Only USER's devices ring (ptt answer, the web page, an iPhone woken with kind private); nobody else hears \
            the call. Exit status 2 if the call is not answered (declined, rung out, unavailable), 1 if refused.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user to call.") var user: String
    @Option(help: "The channel to call from (joined first): the callee sees this membership's name.") var channel:
        String
    @OptionGroup var conversation: ConversationOptions

    func run() async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(conversation.seconds * 1000))
        let client = try await connection.connectMember()
        do {
            _ = try await client.join(channel)
            let call = try await client.call(user, from: channel)
            stderr("ptt: ringing \(user) (call \(call.id))")
            guard let handle = try await answered(call, client: client, before: deadline) else {
                await client.close()
                throw ExitCode(2)
            }
            stderr("ptt: \(user) answered")
            let ending = try await Conversation(client: client, call: call, handle: handle, options: conversation)
                .run(deadline: deadline)
            stderr("ptt: call with \(user) over (\(ending))")
        } catch let error as PTTClientError {
            stderr("ptt: \(error)")
            await client.close()
            throw ExitCode(1)
        }
        await client.close()
    }

    /// Waits for the callee: the call's channel once connected, nil (said why) if it ended first or time ran out.
    private func answered(
        _ call: CallInfo, client: PTTClient, before deadline: ContinuousClock.Instant
    ) async throws
        -> ChannelHandle?
    {
        let outcome = try await firstEvent(of: client, before: deadline) { event -> Result<String, CallEndSummary>? in
            switch event {
            case .callConnected(let connected, let channel) where connected.id == call.id: .success(channel.id)
            case .callEnded(let ended, let reason, let by) where ended.id == call.id:
                .failure(CallEndSummary(reason: reason, by: by))
            default: nil
            }
        }
        switch outcome {
        case .success(let id): return await client.openChannels.first { $0.id == id }
        case .failure(let ended):
            stderr("ptt: not answered: \(ended)")
            return nil
        case nil:
            stderr("ptt: no answer within --seconds")
            try? await client.hangUp(call)
            return nil
        }
    }
}

/// How a call ended, in words.
struct CallEndSummary: Error, CustomStringConvertible {
    var reason: CallEndReason
    var by: String?
    var description: String { reason.rawValue + (by.map { " by \($0)" } ?? "") }
}

/// The first of `client`'s events that `match` maps to a value, or nil when `deadline` passes first.
func firstEvent<T: Sendable>(
    of client: PTTClient, before deadline: ContinuousClock.Instant,
    _ match: @escaping @Sendable (PTTEvent) -> T?
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        let events = client.events
        group.addTask {
            for await event in events {
                if let value = match(event) { return value }
            }
            return nil
        }
        group.addTask {
            try await Task.sleep(until: deadline)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
