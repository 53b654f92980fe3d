import Foundation
import Logging
import PTTProtocol

extension DataDirectory {
    /// The admin API's bearer token from `admin-token`, made (32 random bytes, hex, mode 0600) on first start.
    func loadOrCreateAdminToken(logger: Logger) throws -> String {
        if let text = try? String(contentsOfFile: adminToken, encoding: .utf8) {
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !token.isEmpty { return token }
        }
        var generator = SystemRandomNumberGenerator()
        let token = HexCoding.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try writePrivate(Data((token + "\n").utf8), to: adminToken)
        logger.notice("created admin token", metadata: ["file": "\(adminToken)"])
        return token
    }
}
