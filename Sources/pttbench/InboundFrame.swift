#if os(Linux)
import Foundation
import Glibc
import NIOCore
import PTTProtocol

/// A frame a join-bench member read from pttd, classified with as little decoding as the benchmark allows.
///
/// `member-joined` events are most of what a join run reads (each of N members is told of every later joiner:
/// N²/2 frames), so they are recognised by their bytes alone: the type token `"type":"member-joined"` as pttd's
/// compact encoder writes it, and the counted channel by its quoted UUID (channel ids are UUIDs, member ids 12 hex
/// digits, so the UUID can only be the channel's). Every other frame is decoded, but only as far as the member acts
/// on it: type, `re`, a heartbeat's `seq`, an error's code and message, `joined`'s `memberEvents`. A `member-joined` written some other way
/// (spaces, other escaping) misses the fast path and is decoded instead, so it is still counted right.
enum InboundFrame: Equatable {
    /// A `member-joined`; `counted` when it is for the channel whose events are counted.
    case memberJoined(counted: Bool)
    case welcome
    /// `memberEvents`: whether pttd will tell this member of other joins (absent from servers before that choice).
    case joined(re: Int?, memberEvents: Bool?)
    case error(re: Int?, code: String, message: String)
    case heartbeat(seq: UInt64)
    /// Anything else (floor events, `member-left`…): read and dropped.
    case other(type: String)

    static let memberJoinedToken = Array(#""type":"member-joined""#.utf8)
    static let heartbeatToken = Array(#""type":"heartbeat""#.utf8)
    static let errorToken = Array(#""type":"error""#.utf8)

    /// Whether a frame can matter to a member with no request out: a heartbeat (to acknowledge) or an error (its
    /// health), told by their type tokens as pttd's compact encoder writes them. Everything else such a member reads
    /// (a thousand members are told of every floor change) is dropped undecoded: decoding it cost the bench about
    /// 15 s of CPU in a 300-cycle emergency run (Docs/BENCHMARKS.md), on the same cores as the member being measured.
    static func mayMatterWithoutRequest(_ body: ByteBuffer) -> Bool {
        body.withUnsafeReadableBytes { Self.contains(heartbeatToken, in: $0) || Self.contains(errorToken, in: $0) }
    }

    /// `countedChannel`: the channel's UUID between quotes (`"6f1c…"`), as it appears in the frame.
    static func classify(_ body: ByteBuffer, countedChannel: [UInt8]) throws -> InboundFrame {
        let fast: Bool? = body.withUnsafeReadableBytes { bytes in
            guard Self.contains(memberJoinedToken, in: bytes) else { return nil }
            return Self.contains(countedChannel, in: bytes)
        }
        if let counted = fast { return .memberJoined(counted: counted) }
        return try decode(Data(body.readableBytesView), countedChannel: countedChannel)
    }

    private struct Head: Decodable {
        struct Channel: Decodable { var id: String }
        var type: String
        var re: Int?
        var seq: UInt64?
        var code: String?
        var message: String?
        var channel: Channel?
        var memberEvents: Bool?
    }

    private static func decode(_ body: Data, countedChannel: [UInt8]) throws -> InboundFrame {
        let head: Head
        do {
            head = try JSONDecoder().decode(Head.self, from: body)
        } catch {
            throw BenchError(
                "an undecodable frame from pttd (\(error)): \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        guard let kind = ControlMessage.Kind(rawValue: head.type) else { return .other(type: head.type) }
        switch kind {
        case .memberJoined:
            return .memberJoined(counted: head.channel.map { Array("\"\($0.id)\"".utf8) == countedChannel } ?? false)
        case .welcome: return .welcome
        case .joined: return .joined(re: head.re, memberEvents: head.memberEvents)
        case .error: return .error(re: head.re, code: head.code ?? "?", message: head.message ?? "")
        case .heartbeat:
            guard let seq = head.seq else { throw BenchError("a heartbeat without seq from pttd") }
            return .heartbeat(seq: seq)
        case .hello, .heartbeatAck, .join, .leave, .left, .pushToken, .pushTokenRegistered, .memberLeft, .floorRequest,
            .floorRelease, .floorGranted, .floorDenied, .floorQueued, .floorQueueCancelled, .floorReleased, .floorTaken,
            .floorIdle, .floorRevoked, .floorRevokePending, .push, .pushAck, .replay, .replaying, .replayEnded,
            .presence, .presenceReport, .emergency, .emergencyDeclared, .emergencyClear,
            .emergencyCleared, .call, .callRinging, .callIncoming, .callAccept, .callDecline, .callHangup,
            .callConnected, .callEnded, .broadcast, .broadcastStarted, .broadcastEnded, .scan, .scanSet,
            .scanSwitched:
            return .other(type: head.type)
        }
    }

    /// Whether `needle` occurs in `haystack` (memchr for its first byte, then memcmp).
    static func contains(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
        guard let first = needle.first, let base = haystack.baseAddress, haystack.count >= needle.count else {
            return needle.isEmpty
        }
        return needle.withUnsafeBytes { needleBytes in
            var offset = 0
            let last = haystack.count - needle.count
            while offset <= last {
                guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                let position = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + position, needleBytes.baseAddress!, needle.count) == 0 { return true }
                offset = position + 1
            }
            return false
        }
    }
}
#endif
