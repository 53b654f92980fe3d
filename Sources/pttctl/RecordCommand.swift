import ArgumentParser
import PTTAdmin
import PTTKit
import PTTProtocol

extension ChannelCommand {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Switch recording of a channel's bursts on or off (stored; the config's recording.channels are recorded anyway)."
        )
        @OptionGroup var admin: AdminOptions
        @Argument(help: "Channel name or id.") var channel: String
        @Argument(help: "on or off.") var state: String

        func validate() throws {
            guard ["on", "off"].contains(state) else { throw ValidationError("say 'on' or 'off', not '\(state)'") }
        }

        func run() async throws {
            let client = try admin.client()
            let answer: ChannelRecording = try await adminCall {
                try await client.put(
                    "/api/channels/\(AdminClient.segment(channel))/recording",
                    body: ChannelRecording(recording: state == "on"))
            }
            let name = answer.channel ?? channel
            print("recording of \(name) is \(answer.recording ? "on" : "off")")
            if !answer.recording, answer.configured == true {
                print("note: the config's recording.channels names \(name): it is still recorded")
            }
        }
    }
}
