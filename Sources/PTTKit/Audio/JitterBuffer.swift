/// Puts a listener's RTP packets back in sequence order: holds each packet by its sequence number for a
/// bounded delay so that late, reordered packets can take their place, drops duplicates and packets
/// that come after their place was given up, and reports the holes it gives up on as gaps.
///
/// Pure: no clock, no I/O. Times are monotonic nanoseconds the caller passes in (`ReceivedAudio.arrival`,
/// `NIODeadline.now().uptimeNanoseconds`), so tests drive it with instants they choose.
///
/// A packet that is next in sequence is released at once; the delay applies only while a hole is open:
/// the packets behind it wait until the oldest of them has waited `delay`, then the hole is reported as
/// a ``Output/gap(lost:)`` and they are released. At most `capacity` packets are held: one more gives up
/// on the oldest hole at once.
///
/// A stream can start again (pttd restarted: the relay numbers a listener's packets from its first number again).
/// The buffer then takes the new stream rather than dropping it as late packets or duplicates of the old one: when
/// told (``restart()``, after a new `joined`), when the SSRC changes, on a jump of more than
/// ``resynchronizeDistance`` numbers, and on two packets in sequence more than ``misorderDistance`` behind the
/// stream.
public struct JitterBuffer<Packet> {
    /// What ``release(now:)`` hands on, in sequence order.
    public enum Output {
        /// The next packet of the stream.
        case packet(Packet, sequence: UInt16)
        /// `lost` packets are missing before the next packet released: conceal them.
        case gap(lost: Int)
    }

    /// What happened to an inserted packet.
    public enum Arrival: Equatable, Sendable {
        /// Held in order (it followed every packet seen so far).
        case accepted
        /// Held, after a packet with a higher sequence number: it fills a hole.
        case reordered
        /// Dropped: this sequence number is held or was released already.
        case duplicate
        /// Dropped: its place was already reported as a gap.
        case late
        /// Held apart: far behind the stream (more than ``JitterBuffer/misorderDistance``), it starts a new stream
        /// if the next packet follows it, and is dropped as late otherwise.
        case probation
    }

    /// Counts since the buffer was made.
    public struct Statistics: Equatable, Sendable {
        /// Packets accepted (each sequence number once).
        public var accepted = 0
        /// Accepted packets that arrived after a packet with a higher sequence number.
        public var reordered = 0
        /// Packets dropped as copies of one held or released.
        public var duplicates = 0
        /// Packets dropped because their gap had been reported already.
        public var late = 0
        /// Packets reported missing in gaps.
        public var lost = 0
        /// Packets released.
        public var released = 0
        public init() {}
    }

    /// How long packets behind a hole wait for it to be filled, in nanoseconds.
    public let delay: UInt64
    /// The most packets held at once.
    public let capacity: Int
    public private(set) var statistics = Statistics()

    /// A jump of more than this many sequence numbers (forwards or backwards) is a new stream, not loss.
    public static var resynchronizeDistance: Int64 { 3_000 }
    /// A packet more than this many numbers behind the next one expected (RFC 3550 A.1's MAX_MISORDER; far
    /// outside any jitter window) is on probation: a new stream if the next packet follows it.
    public static var misorderDistance: Int64 { 100 }

    fileprivate struct Held {
        var index: Int64
        var packet: Packet
        var arrival: UInt64
    }

    /// Held packets, sorted by extended sequence number, all at or after `next`.
    private var held: [Held] = []
    /// Extended sequence number of the next packet to release; nil before the first packet.
    private var next: Int64?
    /// The highest extended sequence number accepted.
    private var highest: Int64 = 0
    /// Output waiting for `release`: packets flushed by a resynchronisation.
    private var pending: [Output] = []
    /// Where the next stream's extended numbers start: above every number used so far, so that nothing of an old
    /// stream can be taken for a duplicate.
    private var streamBase: Int64 = 1 << 32
    /// The SSRC of the stream, when the caller tells it.
    private var ssrc: UInt32?
    /// A packet far behind the stream that may be the first of a new one.
    private var probe: (sequence: UInt16, packet: Packet, arrival: UInt64)?
    /// The extended numbers of recently released packets, by `index % count`: tells duplicates from late ones.
    private var recentlyReleased = [Int64](repeating: -1, count: 1_024)

    /// - Parameters:
    ///   - delay: how long to wait for a missing packet, in nanoseconds (60 ms by default: three 20 ms frames).
    ///   - capacity: the most packets held (64 by default: 1.28 s of 20 ms frames).
    public init(delay: UInt64 = 60_000_000, capacity: Int = 64) {
        precondition(capacity > 0, "capacity must be positive")
        self.delay = delay
        self.capacity = capacity
    }

    /// Packets held now.
    public var heldCount: Int { held.count }

    /// When ``release(now:)`` will next have something to give up waiting for, or nil when nothing waits.
    public var nextDeadline: UInt64? {
        guard let next, let first = held.first, first.index != next else { return nil }
        return held.map(\.arrival).min()! &+ delay
    }

    /// The stream starts again (a new `joined` after a reconnect: pttd may have restarted): what is held is handed
    /// on at the next ``release(now:)``, and the next packet is the first of a new stream, whatever its number.
    public mutating func restart() {
        pending += drain(force: true)
        if let next { streamBase = ((max(highest, next) >> 16) + 2) << 16 }
        next = nil
        probe = nil
    }

    /// Takes one packet of the stream `ssrc` as it arrived: a packet of another SSRC than the last starts a new
    /// stream (``restart()``). Call ``release(now:)`` afterwards.
    @discardableResult
    public mutating func insert(_ packet: Packet, sequence: UInt16, ssrc: UInt32, arrival: UInt64) -> Arrival {
        if let current = self.ssrc, current != ssrc { restart() }
        self.ssrc = ssrc
        return insert(packet, sequence: sequence, arrival: arrival)
    }

    /// Takes one packet as it arrived. Call ``release(now:)`` afterwards.
    @discardableResult
    public mutating func insert(_ packet: Packet, sequence: UInt16, arrival: UInt64) -> Arrival {
        if let probe {
            self.probe = nil
            if sequence == probe.sequence &+ 1 {
                // Two packets in sequence far behind: a new stream, from the first of them.
                restart()
                _ = start(at: streamBase | Int64(probe.sequence), probe.packet, arrival: probe.arrival)
            } else {
                statistics.late += 1
            }
        }
        guard let expected = next else {
            return start(at: streamBase | Int64(sequence), packet, arrival: arrival)
        }
        let index = highest + Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest)))
        if abs(index - highest) > Self.resynchronizeDistance {
            // A new stream (e.g. the relay restarted): hand on what is held, then start again.
            restart()
            return start(at: streamBase | Int64(sequence), packet, arrival: arrival)
        }
        if expected - index > Self.misorderDistance {
            probe = (sequence, packet, arrival)
            return .probation
        }
        if index < expected {
            if recentlyReleased[slot(index)] == index {
                statistics.duplicates += 1
                return .duplicate
            }
            statistics.late += 1
            return .late
        }
        let position = insertionPoint(index)
        if position < held.count, held[position].index == index {
            statistics.duplicates += 1
            return .duplicate
        }
        let reordered = index < highest
        highest = max(highest, index)
        held.insert(Held(index: index, packet: packet, arrival: arrival), at: position)
        statistics.accepted += 1
        if reordered { statistics.reordered += 1 }
        return reordered ? .reordered : .accepted
    }

    /// Releases, in order, every packet that is next in sequence, giving up on holes whose waiting time is
    /// over (and on the oldest holes while more than `capacity` packets are held).
    public mutating func release(now: UInt64) -> [Output] {
        var output = pending
        pending = []
        output += drain(force: false, now: now)
        return output
    }

    /// Releases everything held, reporting every hole as a gap: the end of the stream.
    public mutating func flush() -> [Output] {
        if probe != nil { statistics.late += 1 }
        probe = nil
        var output = pending
        pending = []
        output += drain(force: true)
        return output
    }

    // MARK: - Helpers

    private mutating func start(at index: Int64, _ packet: Packet, arrival: UInt64) -> Arrival {
        next = index
        highest = index
        held.append(Held(index: index, packet: packet, arrival: arrival))
        statistics.accepted += 1
        return .accepted
    }

    private mutating func drain(force: Bool, now: UInt64 = 0) -> [Output] {
        var output: [Output] = []
        while let first = held.first, var expected = next {
            if first.index != expected {
                let overdue = held.map(\.arrival).min()! &+ delay <= now
                guard force || overdue || held.count > capacity else { break }
                let lost = Int(first.index - expected)
                output.append(.gap(lost: lost))
                statistics.lost += lost
                expected = first.index
            }
            held.removeFirst()
            output.append(.packet(first.packet, sequence: UInt16(truncatingIfNeeded: first.index)))
            recentlyReleased[slot(first.index)] = first.index
            statistics.released += 1
            next = expected + 1
        }
        return output
    }

    private func slot(_ index: Int64) -> Int { Int(index & Int64(recentlyReleased.count - 1)) }

    /// The first position in `held` whose index is not below `index`.
    private func insertionPoint(_ index: Int64) -> Int {
        var low = 0
        var high = held.count
        while low < high {
            let middle = (low + high) / 2
            if held[middle].index < index { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension JitterBuffer.Output: Equatable where Packet: Equatable {}
extension JitterBuffer: Sendable where Packet: Sendable {}
extension JitterBuffer.Output: Sendable where Packet: Sendable {}
extension JitterBuffer.Held: Sendable where Packet: Sendable {}
