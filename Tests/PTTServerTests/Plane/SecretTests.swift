import Foundation
import PTTKit
import PTTProtocol
import PTTServer
import TestSupport
import Testing

@Suite("Secrets")
struct SecretTests {
    @Test("generated secrets are 32 letters and digits: never a leading '-', nothing to quote")
    func alphabet() {
        for _ in 0..<2_000 {
            let secret = SecretHasher.generateSecret()
            #expect(secret.count == 32)
            #expect(secret.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }, "\(secret)")
        }
        #expect(SecretHasher.generateSecret() != SecretHasher.generateSecret())
    }
}
