import Foundation
import PTTCore

/// A monotonic clock a test moves by hand: it starts at `start` and moves only when `advance` is called.
public final class ManualClock: PTTClock, @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var instant: PTTInstant

    public init(start: PTTInstant = PTTInstant(nanoseconds: 1_000_000_000)) { instant = start }

    public func now() -> PTTInstant { lock.withLock { instant } }

    public func advance(by duration: Duration) { lock.withLock { instant = instant + duration } }
}
