import Crypto
import Foundation

/// Certificate fingerprints as people compare them: SHA-256, colon-separated uppercase hex.
public enum Fingerprint {
    public static func sha256(_ der: [UInt8]) -> String {
        SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}
