/// How a scanned channel resumes when a higher one's burst ends while its own goes on: `scan.resume`.
public enum ScanResume: WireValue {
    /// From the packet being said now (the default).
    case live
    /// From the first packet this device missed, faster than real time until live (the channel's kept burst, 8.13).
    case catchUp
    /// A value from a newer server.
    case unknown(String)

    public static let known: [ScanResume] = [.live, .catchUp]

    public var rawValue: String {
        switch self {
        case .live: "live"
        case .catchUp: "catch-up"
        case .unknown(let value): value
        }
    }
}

/// `scan`: this device's scan list, its channels highest priority first (empty: stop scanning).
public struct ScanRequest: Codable, Sendable, Equatable {
    public var id: Int?
    /// Channels (names or UUIDs) of this device's memberships, highest priority first.
    public var channels: [String]
    /// How a lower channel resumes (default `live`).
    public var resume: ScanResume?

    /// The most channels one scan list may hold (a device's memberships: 16).
    public static let maxChannels = 16

    public init(id: Int? = nil, channels: [String], resume: ScanResume? = nil) {
        self.id = id
        self.channels = channels
        self.resume = resume
    }
}

/// `scan-set`: the answer to `scan`, the list as the server keeps it.
public struct ScanSet: Codable, Sendable, Equatable {
    public var re: Int?
    public var channels: [ChannelInfo]
    public var resume: ScanResume

    public init(re: Int? = nil, channels: [ChannelInfo], resume: ScanResume) {
        self.re = re
        self.channels = channels
        self.resume = resume
    }
}

/// `scan-switched`: the scanned channel this device hears now changed (`hearing` nil: none has a burst).
public struct ScanSwitched: Codable, Sendable, Equatable {
    public var hearing: ChannelInfo?

    public init(hearing: ChannelInfo?) {
        self.hearing = hearing
    }
}
