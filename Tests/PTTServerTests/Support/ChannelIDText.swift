import AsyncHTTPClient
import Foundation
import PTTKit
import PTTProtocol
import TestSupport
import Testing

// Checking channel ids as the admin API and pttctl print them.

enum ChannelIDText {
    static func isUUID(_ text: String) -> Bool { UUID(uuidString: text) != nil && text == text.lowercased() }
}
