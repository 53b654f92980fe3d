import CAllocationCounter

#if canImport(Glibc)
import Glibc
#endif

/// A reading of the process's allocation counters (`CAllocationCounter`): every thread but the ignored ones.
struct AllocationReading {
    var allocations: Int64
    var bytes: Int64
    /// The wall-clock time the operations took (shown, never gated: it depends on the machine and its load).
    var seconds = 0.0

    static func now() -> AllocationReading {
        AllocationReading(allocations: allocation_counter_allocations(), bytes: allocation_counter_bytes())
    }

    static func - (later: AllocationReading, earlier: AllocationReading) -> AllocationReading {
        AllocationReading(allocations: later.allocations - earlier.allocations, bytes: later.bytes - earlier.bytes)
    }
}

/// Counts the allocations made while some operations run, on every thread of the process (the event loops and
/// the storage thread included) except the calling one, which only drives and waits.
enum AllocationMeter {
    /// Whether this build counts allocations (not under a sanitizer, which replaces malloc itself).
    static var available: Bool { allocation_counter_available() }

    /// Checks that the counter sees allocations at all (its malloc took the C library's place): 100 made on this
    /// thread must count at least 100. Guards the gate against passing because it counts nothing.
    static func checkCounting() throws {
        let before = AllocationReading.now()
        for size in 1...100 { free(malloc(size * 8)) }
        let counted = (AllocationReading.now() - before).allocations
        guard counted >= 100 else {
            throw GateFailure("the allocation counter saw \(counted) of 100 mallocs: it is not in effect in this build")
        }
    }

    /// Runs `body` with the calling thread's own allocations left out, and returns what the other threads
    /// allocated meanwhile.
    static func measure(_ body: () throws -> Void) rethrows -> AllocationReading {
        allocation_counter_ignore_this_thread(true)
        defer { allocation_counter_ignore_this_thread(false) }
        let start = AllocationReading.now()
        let clock = ContinuousClock()
        let began = clock.now
        try body()
        var reading = AllocationReading.now() - start
        let elapsed = (clock.now - began).components
        reading.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return reading
    }

    /// Runs operations `0..<warmUp` uncounted (cold paths, first allocations of caches), then
    /// `warmUp..<(warmUp + counted)` measured; `operate` is given each range whole. Returns the counted reading.
    static func measure(
        warmUp: Int, counted: Int, _ operate: (_ range: Range<Int>) throws -> Void
    ) rethrows -> AllocationReading {
        _ = try measure { try operate(0..<warmUp) }
        return try measure { try operate(warmUp..<(warmUp + counted)) }
    }
}
