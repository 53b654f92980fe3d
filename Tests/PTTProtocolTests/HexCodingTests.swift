import Foundation
import PTTProtocol
import TestSupport
import Testing

@Suite("Hex coding")
struct HexCodingTests {
    @Test func decodesEvenLengthHexInEitherCase() {
        #expect(HexCoding.decode("00") == [0])
        #expect(HexCoding.decode("0A") == [10])
        #expect(HexCoding.decode("0a") == [10])
        #expect(HexCoding.decode("aBcD") == [0xAB, 0xCD])
        #expect(HexCoding.decode("00ff7F80") == [0x00, 0xFF, 0x7F, 0x80])
        #expect(
            HexCoding.decode("0123456789abcdefABCDEF") == [
                0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xAB, 0xCD, 0xEF,
            ])
    }

    @Test func emptyIsNil() {
        #expect(HexCoding.decode("") == nil)
    }

    @Test(arguments: ["a", "abc", "0", "12345"])
    func oddLengthIsNil(text: String) {
        #expect(HexCoding.decode(text) == nil)
    }

    @Test(arguments: ["zz", "0g", "g0", " 0", "0 ", "0x12", "12-3", "ab\n", "éé", "１２", "+1", "abcdeF:0"])
    func nonHexIsNil(text: String) {
        #expect(HexCoding.decode(text) == nil)
    }

    @Test func encodesLowercaseTwoDigitsPerByte() {
        #expect(HexCoding.encode([]) == "")
        #expect(HexCoding.encode([0]) == "00")
        #expect(HexCoding.encode([0x00, 0xFF, 0x10, 0xAB, 0x09]) == "00ff10ab09")
    }

    @Test func everyByteValueSurvivesARoundTrip() throws {
        let bytes = (0...255).map { UInt8($0) }
        let text = HexCoding.encode(bytes)
        #expect(text.count == 512)
        #expect(HexCoding.decode(text) == bytes)
        #expect(HexCoding.decode(text.uppercased()) == bytes)
    }

    @Test func randomTokensSurviveARoundTrip() {
        var generator = ProtocolRandom(seed: 99)
        for length in [1, 2, 31, 32, 33, 100, 1024] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(HexCoding.decode(HexCoding.encode(bytes)) == bytes)
        }
    }
}

typealias ProtocolRandom = SplitMix64
