import PTTKit
import TestSupport
import Testing

/// The listener's jitter buffer, driven by instants the test chooses.
@Suite("Jitter buffer: order, duplicates, late packets, gaps, bound")
struct JitterBufferTests {
    typealias Buffer = JitterBuffer<Int>
    static let ms: UInt64 = 1_000_000

    /// The sequence numbers released, with gaps as negative lost counts.
    static func shape(_ output: [Buffer.Output]) -> [Int] {
        output.map {
            switch $0 {
            case .packet(let value, _): value
            case .gap(let lost): -lost
            }
        }
    }

    @Test("packets in order are released at once, with no waiting")
    func inOrder() {
        var buffer = Buffer(delay: 60 * Self.ms)
        var released: [Int] = []
        for n in 0..<10 {
            #expect(buffer.insert(n, sequence: UInt16(100 + n), arrival: UInt64(n) * 20 * Self.ms) == .accepted)
            released += Self.shape(buffer.release(now: UInt64(n) * 20 * Self.ms))
        }
        #expect(released == Array(0..<10))
        #expect(buffer.heldCount == 0)
        #expect(buffer.nextDeadline == nil)
        #expect(buffer.statistics.reordered == 0 && buffer.statistics.lost == 0)
    }

    @Test("a swapped pair is put back in order within the delay and counted as reordered")
    func reorder() {
        var buffer = Buffer(delay: 60 * Self.ms)
        buffer.insert(0, sequence: 0, arrival: 0)
        #expect(Self.shape(buffer.release(now: 0)) == [0])
        #expect(buffer.insert(2, sequence: 2, arrival: 20 * Self.ms) == .accepted)
        #expect(Self.shape(buffer.release(now: 20 * Self.ms)) == [])
        #expect(buffer.nextDeadline == 80 * Self.ms)
        #expect(buffer.insert(1, sequence: 1, arrival: 30 * Self.ms) == .reordered)
        #expect(Self.shape(buffer.release(now: 30 * Self.ms)) == [1, 2])
        #expect(buffer.statistics.reordered == 1)
        #expect(buffer.statistics.lost == 0)
    }

    @Test("a copy of a held or released packet is dropped as a duplicate")
    func duplicates() {
        var buffer = Buffer()
        buffer.insert(0, sequence: 7, arrival: 0)
        _ = buffer.release(now: 0)
        #expect(buffer.insert(0, sequence: 7, arrival: 1) == .duplicate)  // released already
        buffer.insert(2, sequence: 9, arrival: 2)
        #expect(buffer.insert(2, sequence: 9, arrival: 3) == .duplicate)  // held
        buffer.insert(1, sequence: 8, arrival: 4)
        #expect(Self.shape(buffer.release(now: 4)) == [1, 2])
        #expect(buffer.statistics.duplicates == 2)
        #expect(buffer.statistics.released == 3)
    }

    @Test(
        "a hole is given up after the delay: a gap, then the packets behind it; the missing packet is late afterwards")
    func gapAndLate() {
        var buffer = Buffer(delay: 60 * Self.ms)
        buffer.insert(0, sequence: 65_534, arrival: 0)
        _ = buffer.release(now: 0)
        // 65535 and 0 are missing (across the wrap); 1 and 2 arrive.
        buffer.insert(3, sequence: 1, arrival: 40 * Self.ms)
        buffer.insert(4, sequence: 2, arrival: 60 * Self.ms)
        #expect(Self.shape(buffer.release(now: 99 * Self.ms)) == [])
        #expect(buffer.nextDeadline == 100 * Self.ms)
        let output = buffer.release(now: 100 * Self.ms)
        #expect(Self.shape(output) == [-2, 3, 4])
        if case .packet(_, let sequence) = output[1] {
            #expect(sequence == 1)
        } else {
            Issue.record("expected a packet")
        }
        #expect(buffer.insert(1, sequence: 65_535, arrival: 120 * Self.ms) == .late)
        #expect(buffer.statistics.lost == 2)
        #expect(buffer.statistics.late == 1)
    }

    @Test("no more than capacity packets are held: one more gives up the oldest hole at once")
    func bound() {
        var buffer = Buffer(delay: 10_000 * Self.ms, capacity: 8)
        buffer.insert(0, sequence: 0, arrival: 0)
        _ = buffer.release(now: 0)
        var released: [Int] = []
        for n in 2...20 {  // 1 never comes
            buffer.insert(n, sequence: UInt16(n), arrival: UInt64(n) * Self.ms)
            released += Self.shape(buffer.release(now: UInt64(n) * Self.ms))
            #expect(buffer.heldCount <= 8)
        }
        #expect(released == [-1] + Array(2...20))
    }

    @Test("flush reports every hole and releases everything")
    func flush() {
        var buffer = Buffer()
        buffer.insert(0, sequence: 10, arrival: 0)
        buffer.insert(3, sequence: 13, arrival: 0)
        buffer.insert(5, sequence: 15, arrival: 0)
        #expect(Self.shape(buffer.flush()) == [0, -2, 3, -1, 5])
        #expect(buffer.heldCount == 0)
    }

    @Test("a jump of thousands of sequence numbers is a new stream, not a loss")
    func resynchronize() {
        var buffer = Buffer()
        buffer.insert(0, sequence: 100, arrival: 0)
        buffer.insert(2, sequence: 102, arrival: 0)
        #expect(buffer.insert(9, sequence: 40_000, arrival: 1) == .accepted)
        #expect(Self.shape(buffer.release(now: 1)) == [0, -1, 2, 9])
        buffer.insert(10, sequence: 40_001, arrival: 2)
        #expect(Self.shape(buffer.release(now: 2)) == [10])
        #expect(buffer.statistics.lost == 1)
    }

    @Test("seeded random networks: output is in order, each packet once, and loss plus released covers the stream")
    func randomWalk() {
        for seed in 1...50 as ClosedRange<UInt64> {
            var random = SplitMix64(seed: seed)
            var buffer = Buffer(delay: 60 * Self.ms, capacity: 32)
            let count = 500
            let start = UInt16.random(in: 0...UInt16.max, using: &random)
            // Each packet: sent every 20 ms, delayed 0...80 ms, 5 % lost, 3 % duplicated.
            var arrivals: [(time: UInt64, value: Int)] = []
            for n in 0..<count where Int.random(in: 0..<100, using: &random) >= 5 {
                let time = UInt64(n) * 20 * Self.ms + UInt64.random(in: 0...80, using: &random) * Self.ms
                arrivals.append((time, n))
                if Int.random(in: 0..<100, using: &random) < 3 { arrivals.append((time + 5 * Self.ms, n)) }
            }
            arrivals.sort { $0.time < $1.time }
            var values: [Int] = []
            var lost = 0
            func take(_ output: [Buffer.Output]) {
                for item in output {
                    switch item {
                    case .packet(let value, let sequence):
                        values.append(value)
                        #expect(sequence == start &+ UInt16(value))
                    case .gap(let n): lost += n
                    }
                }
            }
            for arrival in arrivals {
                buffer.insert(arrival.value, sequence: start &+ UInt16(arrival.value), arrival: arrival.time)
                take(buffer.release(now: arrival.time))
                #expect(buffer.heldCount <= 32)
            }
            take(buffer.flush())
            #expect(values == values.sorted() && Set(values).count == values.count, "seed \(seed)")
            #expect(values.count + lost == values.last! - values.first! + 1, "seed \(seed)")
            let stats = buffer.statistics
            #expect(stats.accepted == stats.released)
            #expect(stats.accepted + stats.duplicates + stats.late == arrivals.count)
        }
    }
}
