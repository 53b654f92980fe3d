/// A closed set of values that travels as a plain JSON string, and keeps the values this version does not know.
///
/// A conforming enum spells each case in ``rawValue``, lists its known cases in ``known`` and has a case
/// `unknown(String)` for a value a newer peer sent: an older client still decodes the frame, and encodes the value
/// again unchanged. The Codable code lives here, once: every such enum is the bare string on the wire.
public protocol WireValue: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Every case but `unknown`, in the order Docs/PROTOCOL.md lists them.
    static var known: [Self] { get }
    /// A value this version does not know, kept as it was sent. (An enum's `case unknown(String)` is this.)
    static func unknown(_ rawValue: String) -> Self
    /// The string on the wire.
    var rawValue: String { get }
}

extension WireValue {
    /// The known case spelled `rawValue`, or `unknown(rawValue)`.
    public init(rawValue: String) {
        self = Self.known.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
    }

    /// Whether this is one of the ``known`` values (not one a newer peer sent).
    public var isKnown: Bool { Self.known.contains(self) }

    public var description: String { rawValue }

    /// Decodes the bare JSON string; a value not in ``known`` becomes `unknown`.
    public init(from decoder: Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes ``rawValue`` as the bare JSON string.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
