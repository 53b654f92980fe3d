#if os(Linux)
/// One member's media parameters, as `joined` gave them.
struct MemberMedia: Sendable {
    var ssrc: UInt32
    var listenSSRC: UInt32
    var key: [UInt8]
}

/// A failed run, with what went wrong.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
#endif
