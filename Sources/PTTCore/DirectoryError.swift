import Foundation

/// Why a directory request was refused. Each maps to a protocol or admin API error.
public enum DirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidName(String)
    case channelExists(String)
    case noSuchChannel(String)
    case userExists(String)
    case noSuchUser(String)
    case noSuchMember(String)
    case notAMember(channel: String)
    case invalidPushToken(String)
    case invalidValue(String)

    public var description: String {
        switch self {
        case .invalidName(let why): "invalid name: \(why)"
        case .channelExists(let name): "channel '\(name)' already exists"
        case .noSuchChannel(let name): "no channel '\(name)'"
        case .userExists(let name): "user '\(name)' already exists"
        case .noSuchUser(let name): "no user '\(name)'"
        case .noSuchMember(let name): "no member '\(name)'"
        case .notAMember(let channel): "not a member of channel '\(channel)'"
        case .invalidPushToken(let why): "invalid push token: \(why)"
        case .invalidValue(let why): why
        }
    }
}

/// Rules for names of channels and users.
public enum NameRules {
    public static let maxLength = 64
    /// Names also stay within this many bytes of UTF-8, so frames that list members stay small.
    public static let maxUTF8Bytes = 256

    /// Checks a channel or user name: 1 to 64 characters, no control characters, not only spaces,
    /// no leading or trailing spaces.
    public static func validate(_ name: String, what: String) throws(DirectoryError) {
        if name.isEmpty { throw .invalidName("\(what) name is empty") }
        if name.count > maxLength { throw .invalidName("\(what) name is longer than \(maxLength) characters") }
        if name.utf8.count > maxUTF8Bytes {
            throw .invalidName("\(what) name is longer than \(maxUTF8Bytes) bytes of UTF-8")
        }
        let invisible: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        if name.unicodeScalars.contains(where: { invisible.contains($0.properties.generalCategory) }) {
            throw .invalidName("\(what) name contains control or invisible characters")
        }
        if name.trimmingCharacters(in: .whitespacesAndNewlines) != name {
            throw .invalidName("\(what) name has leading or trailing spaces")
        }
    }
}
