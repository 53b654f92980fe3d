/// One measured figure of the gate: allocations per operation, with what was counted.
struct GateMetric: Sendable {
    /// The key in the thresholds file, e.g. `relay.srtp.allocationsPerReceivedPacket`.
    var name: String
    /// Allocations per operation, averaged over ``operations``.
    var allocationsPerOperation: Double
    /// Bytes asked for per operation.
    var bytesPerOperation: Double
    /// How many operations were counted.
    var operations: Int
    /// What one operation is, in words.
    var operation: String

    init(name: String, reading: AllocationReading, operations: Int, operation: String) {
        self.name = name
        self.allocationsPerOperation = Double(reading.allocations) / Double(operations)
        self.bytesPerOperation = Double(reading.bytes) / Double(operations)
        self.operations = operations
        self.operation = operation
    }
}

/// A benchmark that could not run to its end (a copy or an answer did not come within its bound).
struct GateFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
