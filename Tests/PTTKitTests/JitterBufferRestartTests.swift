import PTTKit
import TestSupport
import Testing

/// A listener's stream can start again: after pttd restarts, the relay numbers a listener's packets from the first
/// number again, below the last one heard. The jitter buffer must take such a new stream, not drop it as late
/// packets or duplicates of the old one.
@Suite("Jitter buffer: a new stream (restart, new SSRC, far jump)")
struct JitterBufferRestartTests {
    typealias Buffer = JitterBuffer<Int>
    static let ms: UInt64 = 1_000_000
    static let ssrc: UInt32 = 0x1234_5678

    /// Inserts packets `values` numbered from `first`, 20 ms apart from `at`, releasing after each; returns what came
    /// out (gaps as negative counts) and the arrivals.
    static func feed(
        _ buffer: inout Buffer, _ values: Range<Int>, first: UInt16, at start: UInt64, ssrc: UInt32 = ssrc
    ) -> (released: [Int], arrivals: [Buffer.Arrival]) {
        var released: [Int] = []
        var arrivals: [Buffer.Arrival] = []
        for (offset, value) in values.enumerated() {
            let now = start + UInt64(offset) * 20 * ms
            arrivals.append(buffer.insert(value, sequence: first &+ UInt16(offset), ssrc: ssrc, arrival: now))
            released += JitterBufferTests.shape(buffer.release(now: now))
        }
        return (released, arrivals)
    }

    @Test("restart(): the next packet starts a new stream, even numbered below the old one (a pttd restart)")
    func restartOnRejoin() {
        var buffer = Buffer()
        // First life of the server: 50 packets from the first number.
        let first = Self.feed(&buffer, 0..<50, first: 1000, at: 0)
        #expect(first.released == Array(0..<50))
        // pttd restarts; the client joins again and restarts its buffer; the relay numbers from 1000 again.
        buffer.restart()
        let second = Self.feed(&buffer, 100..<130, first: 1000, at: 5_000 * Self.ms)
        #expect(second.released == Array(100..<130), "the second stream is played, none of it taken as duplicates")
        #expect(second.arrivals.allSatisfy { $0 == .accepted })
        #expect(buffer.statistics.duplicates == 0 && buffer.statistics.late == 0)
    }

    @Test("restart() hands on what was held first: packets behind a hole are released, the hole reported")
    func restartReleasesHeld() {
        var buffer = Buffer()
        _ = Self.feed(&buffer, 0..<3, first: 10, at: 0)
        buffer.insert(5, sequence: 15, ssrc: Self.ssrc, arrival: 60 * Self.ms)
        buffer.restart()
        buffer.insert(9, sequence: 3, ssrc: Self.ssrc, arrival: 80 * Self.ms)
        #expect(JitterBufferTests.shape(buffer.release(now: 80 * Self.ms)) == [-2, 5, 9])
    }

    @Test("a packet with another SSRC starts a new stream")
    func ssrcChange() {
        var buffer = Buffer()
        _ = Self.feed(&buffer, 0..<50, first: 1000, at: 0)
        let other = Self.feed(&buffer, 100..<120, first: 1010, at: 2_000 * Self.ms, ssrc: Self.ssrc &+ 1)
        #expect(other.released == Array(100..<120))
        #expect(buffer.statistics.duplicates == 0 && buffer.statistics.late == 0)
    }

    @Test("a run far behind the stream (beyond the misorder window) is a new stream once a second packet follows it")
    func farJumpBackwards() {
        var buffer = Buffer()
        _ = Self.feed(&buffer, 0..<300, first: 5000, at: 0)
        // Numbers 200 behind the last: one such packet alone is a stray, two in sequence a new stream.
        let jumped = Self.feed(&buffer, 1000..<1020, first: 5100, at: 10_000 * Self.ms)
        #expect(jumped.released == Array(1000..<1020), "the whole new stream, its first packet included")
        #expect(jumped.arrivals.first == .probation)
        #expect(buffer.statistics.late == 0 && buffer.statistics.duplicates == 0)
    }

    @Test("a single stray packet far behind is dropped as late and the stream goes on")
    func strayPacket() {
        var buffer = Buffer()
        _ = Self.feed(&buffer, 0..<300, first: 5000, at: 0)
        #expect(buffer.insert(-1, sequence: 5050, ssrc: Self.ssrc, arrival: 6_000 * Self.ms) == .probation)
        let next = Self.feed(&buffer, 300..<310, first: 5300, at: 6_020 * Self.ms)
        #expect(next.released == Array(300..<310))
        #expect(buffer.statistics.late == 1, "the stray counts as late once the stream went on")
    }

    @Test("packets a little late (within the misorder window) are still late, not a new stream")
    func lateStaysLate() {
        var buffer = Buffer()
        _ = Self.feed(&buffer, 0..<100, first: 0, at: 0)
        #expect(buffer.insert(-1, sequence: 60, ssrc: Self.ssrc, arrival: 3_000 * Self.ms) == .duplicate)
        #expect(buffer.insert(-2, sequence: 61, ssrc: Self.ssrc, arrival: 3_000 * Self.ms) == .duplicate)
        let next = Self.feed(&buffer, 100..<105, first: 100, at: 3_020 * Self.ms)
        #expect(next.released == Array(100..<105))
    }
}
