import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import PTTKit
import PTTProtocol

/// What `ptt call` and `ptt answer` do once a call is connected: talk a file, record what the other side says.
struct ConversationOptions: ParsableArguments {
    @Option(help: "Audio to say once connected (Ogg Opus, WAV or raw PCM, as ptt talk takes), then hang up.")
    var file: String?
    @Option(help: "Record what the other side says into this Ogg Opus file.") var out: String?
    @Option(help: "With --out: hang up once nothing has been heard for this many seconds, once something has.")
    var untilQuiet: Double?
    @Option(help: "Hang up after this many seconds in all (ringing included).") var seconds: Double = 120

    func validate() throws {
        guard seconds > 0, seconds <= 86_400 else { throw ValidationError("--seconds: more than 0, at most 86400") }
        if let untilQuiet, untilQuiet <= 0 { throw ValidationError("--until-quiet: more than 0") }
    }
}

/// A connected call as `ptt` holds it: the other side may hang up at any moment, which ends it.
struct Conversation {
    let client: PTTClient
    let call: CallInfo
    let handle: ChannelHandle
    let options: ConversationOptions

    /// Says the file and records, as asked, until the call ends, this side is done, or the time is up; then hangs up
    /// if the call is still on. Returns how it ended, for the summary.
    ///
    /// When the other side hangs up, what it said last may still be on its way (its `call-ended` comes over TCP, its
    /// audio over UDP): the recording goes on until nothing more arrives for 300 ms, at most 2 s.
    func run(deadline: ContinuousClock.Instant) async throws -> String {
        let sink = try options.out.map { SinkBox(try AudioSink(path: $0, format: "ogg", channels: 1)) }
        let endedAt = NIOLockedValueBox<UInt64?>(nil)
        let ending = try await withThrowingTaskGroup(of: String?.self) { group in
            let events = client.events
            let id = call.id
            group.addTask {
                for await event in events {
                    if case .callEnded(let ended, let reason, let by) = event, ended.id == id {
                        return "ended: \(reason.rawValue)\(by.map { " by \($0)" } ?? "")"
                    }
                }
                return "ended: the connection closed"
            }
            group.addTask { try await say() }
            if let sink { group.addTask { await record(into: sink, endedAt: endedAt) } }
            group.addTask {
                try await Task.sleep(until: deadline)
                return "time is up"
            }
            // The first task with an answer ends the call; `say` and `record` answer nil while the other goes on.
            var done = 0
            let needed = (options.file != nil ? 1 : 0) + (sink != nil ? 1 : 0)
            var ending: String?
            while let result = try await group.next() {
                if let result, ending == nil {
                    ending = result
                    // The recording takes what is still on its way, then answers; nothing else is waited for.
                    guard sink != nil, result.hasPrefix("ended") else { break }
                    endedAt.withLockedValue { $0 = ReceivedAudio.clock() }
                    continue
                }
                if result != nil { continue }
                done += 1
                if ending != nil || done == needed { break }
            }
            group.cancelAll()
            return ending ?? "done"
        }
        if !ending.hasPrefix("ended") { try? await client.hangUp(call) }
        try sink?.finish()
        if let sink, let out = options.out { stderr("ptt: wrote \(sink.count) packets to \(out)") }
        return ending
    }

    /// Takes the call's floor and says the file; nil when done (or with no file: never, the call goes on).
    private func say() async throws -> String? {
        guard let file = options.file else {
            try await Task.sleep(for: .seconds(86_400))
            return nil
        }
        let input = try AudioInput(path: file, options: .init(format: .auto))
        guard case .granted = try await handle.requestFloor() else { return "the floor was not granted" }
        var count = 0
        while let (packet, samples) = try input.next() {
            try await handle.transmit(opus: packet, samples: samples)
            count += 1
        }
        try await handle.releaseFloor()
        stderr("ptt: said \(count) packets")
        return nil
    }

    /// Writes what the call plays into `sink`; nil once quiet for `--until-quiet` (without it: never), or, once the
    /// call ended (`endedAt`), quiet for 300 ms or 2 s after the end.
    private func record(into sink: SinkBox, endedAt: NIOLockedValueBox<UInt64?>) async -> String? {
        let audio = handle.audio
        let quiet = options.untilQuiet.map { UInt64($0 * 1e9) }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in audio { try? sink.take(item) }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(20))
                    let now = ReceivedAudio.clock()
                    if let ended = endedAt.withLockedValue({ $0 }) {
                        let last = max(sink.lastArrival ?? 0, ended)
                        if now - last > 300_000_000 || now - ended > 2_000_000_000 { return }
                    } else if let quiet, let last = sink.lastArrival, now - last > quiet {
                        return
                    }
                }
            }
            await group.next()
            group.cancelAll()
            return nil
        }
    }
}
