import ArgumentParser
import AudioFiles
import Foundation
import Opus
import PTTKit
import PTTProtocol

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a channel and write what it hears, until interrupted or --seconds pass.",
        discussion: """
            OUT is Ogg Opus by default (the packets as the relay sent them; silence between bursts is filled so the \
            file keeps real time), or WAV / raw PCM decoded with libopus (--format wav|raw). - writes to standard output.

            Packets go through a jitter buffer first (--jitter-ms): reordered packets are put back in order, \
            duplicates dropped, and packets still missing after that delay are concealed (libopus FEC and packet loss \
            concealment in wav/raw, packets the decoder conceals in ogg). The summary on standard error counts them.

            --scan deck,bridge,engine joins each of those channels too and scans them, highest priority first: one \
            burst at a time is heard and written, the highest-priority one in progress; each switch is said on \
            standard error ("hearing bridge").
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "Where to write: a file, or - for standard output.") var out: String
    @Option(help: "Output format: ogg, wav or raw.") var format: String = "ogg"
    @Option(help: "Channels of decoded output (wav, raw).") var channels = 1
    @Option(help: "Stop after this many seconds.") var seconds: Double?
    @Option(help: "Stop after this many packets.") var packets: Int?
    @Option(help: "Stop when nothing has been received for this many seconds, once something has.") var untilQuiet:
        Double?
    @Option(help: "How long to wait for a missing packet before concealing it, in milliseconds.") var jitterMs = 60
    @Option(
        help:
            "Hear a recorded burst of the channel again, alone: its id (pttctl history) or 'last'; stops when it ends.")
    var replay: String?
    @Option(help: "Scan these channels (comma-separated, highest priority first), hearing one burst at a time.")
    var scan: String?
    @Option(help: "With --scan: how a lower channel resumes, live or catch-up.") var resume = "live"
    @Flag(help: "Join receive-only.") var receiveOnly = false
    @Flag(help: "Keep the membership afterwards.") var stay = false

    func run() async throws {
        guard ["ogg", "wav", "raw"].contains(format) else { throw ValidationError("--format must be ogg, wav or raw") }
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels must be 1 or 2") }
        guard (0...2_000).contains(jitterMs) else { throw ValidationError("--jitter-ms must be 0 to 2000") }
        let replayBurst = replay.flatMap { $0 == "last" ? nil : Int64($0) }
        if let replay, replay != "last", replayBurst == nil {
            throw ValidationError("--replay takes a burst id or 'last', not '\(replay)'")
        }
        let member = try await MemberConnection.open(
            connection, channel: channel, receiveOnly: receiveOnly, jitterMs: jitterMs)
        let sink: AudioSink
        do {
            sink = try AudioSink(path: out, format: format, channels: channels)
        } catch {
            stderr("ptt: \(error)")
            await member.close(leave: !stay)
            throw ExitCode(1)
        }
        stderr("ptt: listening on \(channel) (\(member.handle.membership.media.security))")
        let scanned = try await scanList(member)
        if replay != nil {
            let replaying = try await member.replay(replayBurst)
            stderr(
                "ptt: replaying burst \(replaying.burst) by \(replaying.speaker): "
                    + "\(Double(replaying.durationMs) / 1000) s, \(replaying.packets) packets")
        }
        let replaying = replay != nil
        let audio = member.handle.audio
        let others = scanned.map(\.audio)
        let limit = packets
        let box = SinkBox(sink)
        let quiet = untilQuiet.map { UInt64($0 * 1e9) }
        try await runUntilInterrupted(seconds: seconds) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for stream in [audio] + others {
                    group.addTask {
                        for await item in stream {
                            try box.take(item)
                            if let limit, box.count >= limit { return }
                        }
                    }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: .milliseconds(10))
                        if let quiet, let last = box.lastArrival, ReceivedAudio.clock() - last > quiet { return }
                        // A replay is over once it said so and its last packets have had 200 ms to arrive.
                        if replaying, let outcome = member.replayEnded() {
                            if ReceivedAudio.clock() - (box.lastArrival ?? 0) > 200_000_000 {
                                stderr("ptt: replay \(outcome)")
                                return
                            }
                        }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
        if !stay { for handle in scanned { try? await handle.leave() } }
        await member.close(leave: !stay)
        // Closing released what the jitter buffer still held (packets behind a hole at the end): write it too.
        do {
            for await item in audio where limit.map({ box.count < $0 }) ?? true { try box.take(item) }
            try box.finish()
        } catch { stderr("ptt: \(error)") }
        let statistics = member.handle.listeningStatistics
        // Duplicates: SRTP replay protection drops most copies before the jitter buffer sees them.
        stderr(
            "ptt: wrote \(box.count) packets to \(out) (concealed \(box.concealed), reordered \(statistics.reordered), "
                + "duplicates \(statistics.duplicates + member.handle.replayedPackets), late \(statistics.late), "
                + "socket reopened \(member.handle.mediaSocketReopens))")
    }
}

/// The sink, fed by the task reading the channel's play-out and read by the command (one at a time).
final class SinkBox: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private let sink: AudioSink
    private var lost = 0
    /// When the last packet arrived.
    private var last: UInt64?

    init(_ sink: AudioSink) { self.sink = sink }

    var count: Int { lock.withLock { sink.count } }
    var concealed: Int { lock.withLock { sink.concealed } }
    var lastArrival: UInt64? { lock.withLock { last } }

    /// One item of the play-out: a packet to write (after the holes before it), a hole, or a late packet (dropped).
    func take(_ item: PlayoutItem) throws {
        try lock.withLock {
            switch item {
            case .audio(let packet):
                last = packet.arrival
                try sink.write(packet, lostBefore: lost)
                lost = 0
            case .lost(let count): lost += count
            case .late(let packet): last = packet.arrival
            }
        }
    }

    func finish() throws {
        try lock.withLock { try sink.finish() }
    }
}

extension Listen {
    /// With `--scan`: joins the listed channels this member is not in yet, sets the scan list, and says each switch;
    /// returns the extra channels' handles, whose audio is written too. (``MemberConnection`` says each switch.)
    func scanList(_ member: MemberConnection) async throws -> [ChannelHandle] {
        guard let scan else { return [] }
        let names = scan.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let resume = ScanResume(rawValue: resume)
        guard ScanResume.known.contains(resume) else {
            throw ValidationError("--resume must be live or catch-up")
        }
        var handles: [ChannelHandle] = []
        do {
            for name in names where name != channel {
                handles.append(try await member.client.join(name, receiveOnly: receiveOnly))
            }
            let set = try await member.client.scan(names, resume: resume)
            stderr("ptt: scanning \(set.map(\.name).joined(separator: ", ")) (resume \(resume))")
        } catch {
            stderr("ptt: \(error)")
            await member.close(leave: !stay)
            throw ExitCode(1)
        }
        return handles
    }
}
