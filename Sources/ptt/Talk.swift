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
            waits for its turn; a denied one exits with status 2.
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
            try await member.takeFloor(waitingAtMost: wait)
            let (packets, seconds, revoked) = try await send(input, over: member)
            // The last packets travel over UDP, the release over the control connection, and the server reads the
            // two on different threads: a release sent at once can overtake them and the relay drops what comes
            // after it (seen: the last frame lost on a loaded machine). Release one frame time and a margin later,
            // as a person's thumb does.
            if revoked == nil { try? await Task.sleep(for: .milliseconds(60)) }
            member.client.send(.floorRelease(FloorCommand(channel: channel)))
            let reopens = member.media.socketReopens
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

    /// Sends packets paced by their duration; stops early if the floor is revoked.
    private func send(_ input: AudioInput, over member: MemberConnection) async throws -> (Int, Double, String?) {
        let start = ContinuousClock.now
        var timestamp = UInt32.random(in: 0...UInt32.max)
        var elapsed = 0
        var count = 0
        while let (packet, samples) = try input.next() {
            if let cause = member.revokedCause() { return (count, Double(elapsed) / 48_000, cause) }
            try await Task.sleep(until: start + .microseconds(Int64(elapsed) * 1_000 / 48), clock: .continuous)
            try member.media.send(opus: packet, timestamp: timestamp, marker: count == 0)
            timestamp &+= UInt32(samples)
            elapsed += samples
            count += 1
        }
        return (count, Double(elapsed) / 48_000, nil)
    }
}
