/// What one connection, one address and the admin port may cost the server.
///
/// Encoded as the `limits` object of the server's config file, durations in whole milliseconds or
/// seconds: `{"helloTimeoutMs": 10000, "closeGraceMs": 2000, "outboundQueueBytes": 262144,
///   "maxPendingHellos": 256, "perAddressConnections": 64, "failedHellosPerAddress": 20, "failedHelloWindowSeconds": 60,
///   "addressBlockSeconds": 60, "exemptLoopback": true, "adminMaxConnections": 32,
///   "adminIdleTimeoutMs": 30000, "adminRequestTimeoutMs": 10000}`. Every key is optional.
public struct ConnectionLimits: Sendable, Equatable {
    /// A control connection that has not sent a valid `hello` this long after TCP accept is closed,
    /// whatever state TLS is in.
    public var helloTimeout: Duration = .seconds(10)
    /// How long an `error` frame gets to reach the socket before its connection is closed anyway
    /// (a peer that never reads, or never finishes the TLS handshake, does not hold the socket).
    public var closeGrace: Duration = .seconds(2)
    /// Bytes written to one control connection and not yet taken by its socket, at most; a connection
    /// whose peer does not read past this is closed (`slow-reader`).
    public var outboundQueueBytes = 256 * 1024
    /// Control connections accepted and not yet past `hello` (TLS handshake included) at once; at the
    /// bound the listener stops accepting and new connections wait in the kernel's backlog.
    public var maxPendingHellos = 256
    /// Control connections open at once from one address.
    public var perAddressConnections = 64
    /// Connections from one address that end without a successful `hello` (wrong secret, no hello,
    /// a bad first frame), within `failedHelloWindow`, after which that address is refused for
    /// `addressBlock`.
    public var failedHellosPerAddress = 20
    public var failedHelloWindow: Duration = .seconds(60)
    public var addressBlock: Duration = .seconds(60)
    /// Whether connections from this host (127.0.0.0/8, ::1) skip the per-address limits (the global
    /// `maxConnections` still applies). Benchmarks and local tools open many connections from loopback.
    public var exemptLoopback = true
    /// Admin API connections open at once.
    public var adminMaxConnections = 32
    /// An admin connection with no request in progress is closed after this long.
    public var adminIdleTimeout: Duration = .seconds(30)
    /// An admin request must arrive whole (head and body) within this long of its first byte.
    public var adminRequestTimeout: Duration = .seconds(10)

    /// The smallest `outboundQueueBytes`: the largest frame must fit.
    public static let minimumOutboundQueueBytes = 128 * 1024

    public init() {}
}

extension ConnectionLimits: Codable {
    public enum CodingKeys: String, CodingKey {
        case helloTimeoutMs, closeGraceMs, outboundQueueBytes, maxPendingHellos, perAddressConnections,
            failedHellosPerAddress
        case failedHelloWindowSeconds, addressBlockSeconds, exemptLoopback, adminMaxConnections
        case adminIdleTimeoutMs, adminRequestTimeoutMs
    }

    /// Decodes limits; missing keys take their defaults. Throws `DecodingError.dataCorrupted` naming the
    /// key when a value is out of range.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ConnectionLimits()
        helloTimeout = .milliseconds(
            try c.decodeInteger(.helloTimeoutMs, in: 100...600_000, default: defaults.helloTimeout.milliseconds))
        closeGrace = .milliseconds(
            try c.decodeInteger(.closeGraceMs, in: 10...60_000, default: defaults.closeGrace.milliseconds))
        outboundQueueBytes = Int(
            try c.decodeInteger(
                .outboundQueueBytes, in: Int64(Self.minimumOutboundQueueBytes)...(1 << 30),
                default: Int64(defaults.outboundQueueBytes)))
        maxPendingHellos = Int(
            try c.decodeInteger(.maxPendingHellos, in: 1...1_000_000, default: Int64(defaults.maxPendingHellos)))
        perAddressConnections = Int(
            try c.decodeInteger(
                .perAddressConnections, in: 1...1_000_000, default: Int64(defaults.perAddressConnections)))
        failedHellosPerAddress = Int(
            try c.decodeInteger(
                .failedHellosPerAddress, in: 1...1_000_000, default: Int64(defaults.failedHellosPerAddress)))
        failedHelloWindow = .seconds(
            try c.decodeInteger(
                .failedHelloWindowSeconds, in: 1...86_400, default: defaults.failedHelloWindow.components.seconds))
        addressBlock = .seconds(
            try c.decodeInteger(.addressBlockSeconds, in: 0...86_400, default: defaults.addressBlock.components.seconds)
        )
        exemptLoopback = try c.decodeIfPresent(Bool.self, forKey: .exemptLoopback) ?? defaults.exemptLoopback
        adminMaxConnections = Int(
            try c.decodeInteger(.adminMaxConnections, in: 1...100_000, default: Int64(defaults.adminMaxConnections)))
        adminIdleTimeout = .milliseconds(
            try c.decodeInteger(
                .adminIdleTimeoutMs, in: 100...3_600_000, default: defaults.adminIdleTimeout.milliseconds))
        adminRequestTimeout = .milliseconds(
            try c.decodeInteger(
                .adminRequestTimeoutMs, in: 100...600_000,
                default: defaults.adminRequestTimeout.milliseconds))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(helloTimeout.milliseconds, forKey: .helloTimeoutMs)
        try c.encode(closeGrace.milliseconds, forKey: .closeGraceMs)
        try c.encode(outboundQueueBytes, forKey: .outboundQueueBytes)
        try c.encode(maxPendingHellos, forKey: .maxPendingHellos)
        try c.encode(perAddressConnections, forKey: .perAddressConnections)
        try c.encode(failedHellosPerAddress, forKey: .failedHellosPerAddress)
        try c.encode(failedHelloWindow.components.seconds, forKey: .failedHelloWindowSeconds)
        try c.encode(addressBlock.components.seconds, forKey: .addressBlockSeconds)
        try c.encode(exemptLoopback, forKey: .exemptLoopback)
        try c.encode(adminMaxConnections, forKey: .adminMaxConnections)
        try c.encode(adminIdleTimeout.milliseconds, forKey: .adminIdleTimeoutMs)
        try c.encode(adminRequestTimeout.milliseconds, forKey: .adminRequestTimeoutMs)
    }
}
