import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

/// `ptt answer`: waits in a channel for a private call to this user, and answers (or declines) the first one.
struct Answer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait for a private call to this user and answer it (or decline it); record it, say a file.",
        discussion: """
            Joins --channel first: a call rings a device with a membership. Prints who calls. Exit status 2 if no \
            call came within --seconds, or the call ended before it could be answered.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "A channel to wait in (joined first).") var channel: String
    @Flag(help: "Decline the call instead of answering it.") var decline = false
    @OptionGroup var conversation: ConversationOptions

    func run() async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(conversation.seconds * 1000))
        let client = try await connection.connectMember()
        do {
            _ = try await client.join(channel)
            stderr("ptt: waiting for a call on \(channel)")
            let incoming = try await firstEvent(of: client, before: deadline) { event -> CallInfo? in
                if case .callIncoming(let call, _) = event { return call }
                return nil
            }
            guard let call = incoming else {
                stderr("ptt: no call within --seconds")
                await client.close()
                throw ExitCode(2)
            }
            stderr("ptt: \(call.caller.name) (\(call.caller.user)) calls (call \(call.id))")
            if decline {
                try await client.decline(call)
                stderr("ptt: declined")
                return await client.close()
            }
            let handle = try await client.accept(call)
            stderr("ptt: answered")
            let ending = try await Conversation(client: client, call: call, handle: handle, options: conversation)
                .run(deadline: deadline)
            stderr("ptt: call with \(call.caller.user) over (\(ending))")
        } catch let error as PTTClientError {
            stderr("ptt: \(error)")
            await client.close()
            throw ExitCode(error.isCallOver ? 2 : 1)
        }
        await client.close()
    }
}

extension PTTClientError {
    /// The call ended before this side's answer reached the server.
    var isCallOver: Bool {
        if case .refused(_, let message) = self { return message.hasPrefix("the call ended") }
        return false
    }
}
