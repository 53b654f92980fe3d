import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

struct Talk: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take the floor of a channel, send audio in real time, release.",
        discussion: """
            IN is Ogg Opus (packets sent as they are) or WAV / raw PCM (encoded with libopus); - reads standard input, \
            so `arecord -f S16_LE -r 48000 -c 1 | ptt talk --channel deck --file -` is a walkie-talkie. A queued request \
            waits for its turn; a denied one exits with status 2. --broadcast (or --broadcast-all) talks to other \
            channels at once through this one (the user needs the broadcast right): every member of each hears it.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "Audio to send: Ogg Opus, WAV, raw PCM, or - for standard input.") var file: String
    @Option(help: "Input format: auto, ogg, wav or raw.") var format: String = "auto"
    @Option(help: "Raw PCM sample rate.") var rate = 48_000
    @Option(help: "Raw PCM channels.") var channels = 1
    @Option(help: "Opus frame length for PCM input, in milliseconds.") var frameMs = 20
    @Option(help: "Give up waiting in the queue after this many seconds.") var wait: Double = 60
    @Flag(help: "Keep the membership afterwards.") var stay = false
    @Option(help: "Broadcast to these channels too (comma-separated names).") var broadcast: String?
    @Flag(help: "Broadcast to every channel.") var broadcastAll = false

    func run() async throws {
        guard let format = AudioInput.Format(rawValue: format) else {
            throw ValidationError("--format must be auto, ogg, wav or raw")
        }
        let input: AudioInput
        do {
            input = try AudioInput(
                path: file,
                options: .init(format: format, rawRate: rate, rawChannels: channels, frameMilliseconds: frameMs))
        } catch {
            stderr("ptt: \(error)")
            throw ExitCode(1)
        }
        let member = try await MemberConnection.open(connection, channel: channel)
        do {
            if broadcast != nil || broadcastAll {
                let to = (broadcast ?? "").split(separator: ",").map { String($0) }
                let started = try await member.handle.broadcast(to: to, all: broadcastAll)
                stderr("ptt: broadcasting to \(started.channels.joined(separator: ", "))")
            } else {
                try await member.takeFloor(waitingAtMost: wait)
            }
            let (packets, seconds, revoked) = try await send(input, over: member)
            // The kit releases once the queued packets went out; the server still relays packets the release
            // overtakes (TCP against UDP) for a moment after it.
            if revoked == nil { try await member.handle.releaseFloor() }
            let reopens = member.handle.mediaSocketReopens
            stderr(
                "ptt: sent \(packets) packets (\(String(format: "%.2f", seconds)) s) to \(channel)\(revoked.map { "; floor revoked: \($0)" } ?? "")"
                    + (reopens > 0 ? "; media socket reopened \(reopens) times (address changed)" : ""))
            await member.close(leave: !stay)
            if revoked != nil { throw ExitCode(4) }
        } catch let error as ExitCode {
            await member.close(leave: !stay)
            throw error
        } catch {
            stderr("ptt: \(error)")
            await member.close(leave: !stay)
            throw ExitCode(1)
        }
    }

    /// Hands the packets to the kit, which stamps and paces them; stops early if the floor is revoked.
    private func send(_ input: AudioInput, over member: MemberConnection) async throws -> (Int, Double, String?) {
        var elapsed = 0
        var count = 0
        while let (packet, samples) = try input.next() {
            if let cause = member.revokedCause() { return (count, Double(elapsed) / 48_000, cause) }
            try await member.handle.transmit(opus: packet, samples: samples)
            elapsed += samples
            count += 1
        }
        // Wait for the last packets to leave, so that a revocation during them is still seen.
        while member.handle.queuedPackets > 0, member.revokedCause() == nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        return (count, Double(elapsed) / 48_000, member.revokedCause())
    }
}
