import Crypto
import Foundation

/// Generates user secrets and checks them against stored hashes.
///
/// Secrets are 24 random bytes chosen by the server (192 bits), so a salted SHA-256 is enough: there is
/// no low-entropy password to brute-force, and a slow KDF would only slow every login. Comparison is
/// constant-time.
public enum SecretHasher {
    /// A new secret: 32 characters of base64url, no padding.
    public static func generateSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A fresh 16-byte salt.
    public static func makeSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    public static func hash(secret: String, salt: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Array(secret.utf8))
        return Array(hasher.finalize())
    }

    /// True when `secret` hashes to `expected` with `salt`; takes the same time wherever the bytes differ.
    public static func verify(secret: String, salt: [UInt8], expected: [UInt8]) -> Bool {
        let actual = hash(secret: secret, salt: salt)
        guard actual.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(actual, expected) { difference |= a ^ b }
        return difference == 0
    }
}
