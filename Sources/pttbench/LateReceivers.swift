#if os(Linux)
import Foundation
import Glibc

/// What the late listeners' sockets received, apart from the live listeners' figures: which of the talker's
/// packets each one got (a bit per packet, so a packet sent twice counts once), how many of them were sent before
/// the late listeners were first heard (the catch-up's share), and when each one stopped being behind.
///
/// Packets are matched as `Receivers` matches them: a catch-up carries the burst's timestamps, so packet k has the
/// timestamp of the burst's first packet + 960·k, the same for a late listener as for a live one.
struct LateReceivers {
    /// A packet that arrives later than this after its send is still being caught up with.
    static let behindNanoseconds: UInt64 = 100_000_000

    /// The SSRC each late listener's stream must carry, by late listener index.
    let listenSSRCs: [UInt32]
    /// One bit per talker packet, `words` words per late listener.
    let seen: UnsafeMutablePointer<UInt64>
    let words: Int
    /// Distinct packets per late listener, and the CLOCK_REALTIME arrival of the last one more than
    /// `behindNanoseconds` behind its send (0: none).
    var distinct: [Int]
    var lastBehind: [UInt64]
    var tally = LateTally()
    /// CLOCK_MONOTONIC when the last counted packet was read.
    var lastDelivery: UInt64 = 0
    let verifier: PacketVerifier

    init(listenSSRCs ssrcs: [UInt32], maxPackets: Int, verifier: PacketVerifier) {
        listenSSRCs = ssrcs
        words = (maxPackets + 63) / 64
        seen = .allocate(capacity: max(1, words * ssrcs.count))
        seen.initialize(repeating: 0, count: max(1, words * ssrcs.count))
        distinct = Array(repeating: 0, count: ssrcs.count)
        lastBehind = Array(repeating: 0, count: ssrcs.count)
        self.verifier = verifier
        tally.listeners = ssrcs.count
    }

    func deallocate() { seen.deallocate() }

    /// Every distinct packet of the run reached every late listener.
    func complete(sent: Int) -> Bool { tally.listeners == 0 || distinct.min()! >= sent }

    /// Counts one datagram read from late listener `listener`'s socket. `firstTimestamp`: the burst's first
    /// timestamp as the live listeners learnt it (nil: not yet); `arrival` and `sendTimes` as for `Receivers`.
    @inline(__always)
    mutating func receive(
        listener: Int, packet: UnsafeMutableRawPointer, length: Int, arrival: UInt64, seen readAt: UInt64,
        counting: Bool, firstTimestamp: UInt32?, sendTimes: UnsafeMutablePointer<UInt64>, sent: Int
    ) {
        guard length >= 12 else {
            tally.unmatched += 1
            return
        }
        let second = packet.load(fromByteOffset: 1, as: UInt8.self)
        if second >= 192 && second <= 223 { return }  // RTCP
        guard counting else { return }
        let ssrc = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard ssrc == listenSSRCs[listener] else {
            tally.wrongSSRC += 1
            return
        }
        let timestamp = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        guard let firstTimestamp else {
            tally.unmatched += 1
            return
        }
        guard
            let match = SentPacketMatch(
                timestamp: timestamp, firstTimestamp: firstTimestamp, limit: min(sent, words * 64),
                sendTimes: sendTimes, arrival: arrival)
        else {
            tally.unmatched += 1
            return
        }
        let (index, sentAt) = (match.index, match.sentAt)
        tally.delivered += 1
        lastDelivery = readAt
        if arrival - sentAt > Self.behindNanoseconds { lastBehind[listener] = max(lastBehind[listener], arrival) }
        let word = seen + listener * words + index / 64
        let bit = UInt64(1) << UInt64(index % 64)
        if word.pointee & bit != 0 {
            tally.duplicates += 1
            return
        }
        word.pointee |= bit
        distinct[listener] += 1
        if index < tally.sentBeforeHeard { tally.deliveredSentBeforeHeard += 1 }
        if distinct[listener] == 1 || tally.delivered % verifier.every == 0 {
            if verifier.verify(listener: listener, packet: packet, length: length, index: index) {
                tally.verified += 1
            } else {
                tally.verifyFailed += 1
            }
        }
    }

    /// The tally with the spread over the late listeners (of the `sent` packets) and how long each one took to
    /// catch up, from `heardAt` (CLOCK_REALTIME of their first keep-alive; 0: they were never sent one).
    func summary(heardAt: UInt64, sent: Int) -> LateTally {
        var result = tally
        result.expectedPerListener = sent
        result.minPerListener = distinct.min() ?? 0
        result.maxPerListener = distinct.max() ?? 0
        result.completeListeners = distinct.count(where: { $0 >= sent })
        if heardAt > 0 {
            let seconds = lastBehind.map { $0 > heardAt ? Double($0 - heardAt) / 1e9 : 0 }.sorted()
            result.caughtUpSecondsMedian = seconds.isEmpty ? nil : seconds[seconds.count / 2]
            result.caughtUpSecondsMax = seconds.last
        }
        return result
    }
}

/// What the late listeners received over the run.
struct LateTally: Sendable, Codable {
    var listeners = 0
    /// Packets of the run received (duplicates included).
    var delivered = 0
    /// The talker's packets sent before the late listeners' first keep-alive, and how many deliveries of them the
    /// late listeners got (all of them came through catch-up).
    var sentBeforeHeard = 0
    var deliveredSentBeforeHeard = 0
    /// The talker's packets over the run: what each late listener should have received.
    var expectedPerListener = 0
    /// Distinct packets per late listener, fewest and most, and the late listeners that got all the run's packets.
    var minPerListener = 0
    var maxPerListener = 0
    var completeListeners = 0
    var duplicates = 0
    var wrongSSRC = 0
    var unmatched = 0
    var verified = 0
    var verifyFailed = 0
    var keepAlivesSent = 0
    /// From the first keep-alive to each late listener's last packet more than 100 ms behind its send: median and
    /// slowest.
    var caughtUpSecondsMedian: Double?
    var caughtUpSecondsMax: Double?
}
#endif
