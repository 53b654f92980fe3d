/// One measured figure of the gate: allocations (or bytes) per operation, with what was counted.
struct GateMetric: Sendable {
    /// What the threshold is on.
    enum Unit: Sendable {
        /// Heap allocations per operation (most metrics: an extra one anywhere on the path shows).
        case allocations
        /// Heap bytes asked for per operation (a cost that grows with a size, such as copying a whole table, is
        /// one allocation however large: its bytes show it).
        case bytes
    }

    /// The key in the thresholds file, e.g. `relay.srtp.allocationsPerReceivedPacket`.
    var name: String
    /// Allocations per operation, averaged over ``operations``.
    var allocationsPerOperation: Double
    /// Bytes asked for per operation.
    var bytesPerOperation: Double
    /// Wall-clock microseconds per operation (shown, never gated).
    var microsecondsPerOperation: Double
    /// How many operations were counted.
    var operations: Int
    /// What one operation is, in words.
    var operation: String
    var unit: Unit

    /// The figure the threshold is on.
    var value: Double { unit == .bytes ? bytesPerOperation : allocationsPerOperation }

    init(name: String, reading: AllocationReading, operations: Int, operation: String, unit: Unit = .allocations) {
        self.name = name
        self.unit = unit
        self.allocationsPerOperation = Double(reading.allocations) / Double(operations)
        self.bytesPerOperation = Double(reading.bytes) / Double(operations)
        self.microsecondsPerOperation = reading.seconds * 1e6 / Double(operations)
        self.operations = operations
        self.operation = operation
    }
}

/// A benchmark that could not run to its end (a copy or an answer did not come within its bound).
struct GateFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
