import NIOCore
import PTTCore

/// The packets of one talk burst as the relay sent them (payload, the channel's timestamp, marker, arrival), kept
/// while the burst lasts and while a member still plays them: what a member that arrives late catches up from.
///
/// Packets are numbered from 0 for the whole burst; the oldest can be dropped (the channel's or the server's
/// bound), so the retained ones are `firstRetained..<endIndex`. Payloads live in one growing byte array and
/// entries in another: appending costs no allocation but the arrays' occasional growth.
final class BurstBuffer {
    struct Entry {
        var offset: Int
        var length: Int
        var timestamp: UInt32
        var marker: Bool
        var arrival: NIODeadline
    }

    /// What one entry costs besides its payload, counted against the bounds.
    static let entryCost = MemoryLayout<Entry>.stride

    let channel: ChannelID
    /// The speaker's SSRC, the CSRC of every copy.
    let speakerSSRC: UInt32
    /// The channel's floor generation the burst belongs to (members woken for it carry the same).
    let generation: UInt64
    /// Whether the burst still goes on (packets are added); a closed buffer only serves members still playing it.
    var isOpen = true
    /// Members playing this buffer now.
    var players = 0
    /// The recording this burst goes to, if its channel is recorded.
    var recordingKey: UInt64?
    /// The number of the first packet not yet handed to the recorder.
    var handedOff = 0

    private var payloads: [UInt8] = []
    private var entries: [Entry] = []
    /// The number of the packet at `entries[0]`.
    private var base = 0
    /// Where the first retained packet is in `entries` (the ones before it were dropped, not yet compacted).
    private var head = 0
    /// Payload bytes and entry costs of the retained packets.
    private(set) var byteCount = 0

    init(channel: ChannelID, speakerSSRC: UInt32, generation: UInt64) {
        self.channel = channel
        self.speakerSSRC = speakerSSRC
        self.generation = generation
    }

    /// The number of the oldest packet still kept.
    var firstRetained: Int { base + head }
    /// One past the number of the newest packet.
    var endIndex: Int { base + entries.count }
    var isEmpty: Bool { head == entries.count }
    /// When the oldest kept packet arrived.
    var oldestArrival: NIODeadline? { isEmpty ? nil : entries[head].arrival }
    /// When the newest packet arrived.
    var newestArrival: NIODeadline? { isEmpty ? nil : entries[entries.count - 1].arrival }

    /// Keeps a packet's payload (the bytes after its RTP header, as sent).
    func append(_ payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, arrival: NIODeadline) {
        entries.append(
            Entry(offset: payloads.count, length: payload.count, timestamp: timestamp, marker: marker, arrival: arrival)
        )
        payloads.append(contentsOf: payload)
        byteCount += payload.count + Self.entryCost
    }

    /// Keeps a packet's payload given as bytes (a recorded burst being loaded).
    func append(_ payload: [UInt8], timestamp: UInt32, marker: Bool, arrival: NIODeadline) {
        payload.withUnsafeBytes { append($0, timestamp: timestamp, marker: marker, arrival: arrival) }
    }

    /// Drops the oldest kept packet; returns whether there was one.
    @discardableResult
    func dropOldest() -> Bool {
        guard !isEmpty else { return false }
        byteCount -= entries[head].length + Self.entryCost
        head += 1
        if head >= 64, head * 2 >= entries.count { compact() }
        return true
    }

    /// The packet numbered `index` (retained), its payload handed to `body`.
    func withPacket<R>(_ index: Int, _ body: (Entry, UnsafeRawBufferPointer) -> R) -> R {
        let entry = entries[index - base]
        return payloads.withUnsafeBytes {
            body(entry, UnsafeRawBufferPointer(rebasing: $0[entry.offset..<entry.offset + entry.length]))
        }
    }

    func entry(_ index: Int) -> Entry { entries[index - base] }

    /// The number of the first retained packet that arrived after `deadline` (`endIndex` if none did).
    func firstIndex(arrivedAfter deadline: NIODeadline) -> Int {
        var low = head
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].arrival > deadline { high = middle } else { low = middle + 1 }
        }
        return base + low
    }

    /// Moves the retained packets to the front of the arrays, so dropped ones stop taking memory.
    private func compact() {
        let shift = isEmpty ? payloads.count : entries[head].offset
        payloads.removeFirst(shift)
        entries.removeFirst(head)
        for index in entries.indices { entries[index].offset -= shift }
        base += head
        head = 0
    }
}
