import Foundation
import PTTCore

/// A wall clock a test moves by hand (announcement expiry): the system's time plus what the test added.
public final class ManualWallClock: WallClock, @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    public init() {}
    public func now() -> Date { lock.withLock { Date().addingTimeInterval(offset) } }
    public func advance(by seconds: TimeInterval) { lock.withLock { offset += seconds } }
}
