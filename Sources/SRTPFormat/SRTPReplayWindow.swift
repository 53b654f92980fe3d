/// Which packet indices a stream has seen, for replay protection (RFC 3711 §3.3.2): the highest
/// index accepted so far and a bit per index for the `size` indices up to it. An index above the
/// highest is new; one `size` or more below it is too old; one in between is new unless its bit is set.
///
/// The bits live in a ring of 64-bit words indexed by `index % capacity`, so advancing the window
/// clears only the bits it moves over and never shifts the whole mask. Nothing allocates after
/// ``init(size:)``. `@inlinable`: both sessions consult it for every packet.
@_spi(SRTPInternals) public struct SRTPReplayWindow {
    /// What the window says about an index.
    public enum Verdict: Equatable {
        /// Not seen, and inside (or ahead of) the window.
        case fresh
        /// Already accepted.
        case duplicate
        /// Further behind the highest accepted index than the window reaches.
        case tooOld
    }

    /// The replay window a session gets unless it asks for another (libsrtp's default).
    @inlinable public static var defaultSize: Int { 128 }
    /// The replay window sizes a session accepts (as libsrtp's).
    @inlinable public static var allowedSizes: Range<Int> { 64..<0x8000 }

    /// How many indices below the highest the window remembers.
    public let size: UInt64
    /// The highest index accepted so far (0 before the first packet, as in libsrtp).
    public var highest: UInt64 = 0
    @usableFromInline var bits: [UInt64]
    @usableFromInline let capacity: UInt64

    /// A window remembering `size` indices (≥ 1).
    @inlinable
    public init(size: Int) {
        let words = (size + 63) / 64
        self.size = UInt64(size)
        self.capacity = UInt64(words * 64)
        self.bits = [UInt64](repeating: 0, count: words)
    }

    /// Whether `index` may be accepted; changes nothing.
    @inlinable
    public func verdict(for index: UInt64) -> Verdict {
        if index > highest { return .fresh }
        if highest - index >= size { return .tooOld }
        let position = index % capacity
        return bits[Int(position / 64)] & (1 << (position % 64)) != 0 ? .duplicate : .fresh
    }

    /// Records `index` as accepted (call only after the packet authenticated), moving the window
    /// forward if it is the highest yet.
    @inlinable
    public mutating func accept(_ index: UInt64) {
        if index > highest {
            let advance = index - highest
            if advance >= capacity {
                for word in bits.indices { bits[word] = 0 }
            } else {
                var cleared = highest &+ 1
                while cleared <= index {
                    let position = cleared % capacity
                    bits[Int(position / 64)] &= ~(1 << (position % 64))
                    cleared &+= 1
                }
            }
            highest = index
        }
        let position = index % capacity
        bits[Int(position / 64)] |= 1 << (position % 64)
    }
}
