import Crypto
import Foundation

/// Generates user secrets and checks them against stored hashes.
///
/// Secrets are 32 random letters and digits chosen by the server (190 bits), so a salted SHA-256 is enough: there is
/// no low-entropy password to brute-force, and a slow KDF would only slow every login. Comparison is
/// constant-time.
public enum SecretHasher {
    /// A new secret: 32 letters and digits (190 bits). Nothing else, so it never looks like a command-line
    /// option (a leading `-`) and needs no quoting in a shell.
    public static func generateSecret() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet.randomElement(using: &generator)! })
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
