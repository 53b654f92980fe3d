import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: member ids")
struct DirectoryMemberIDTests {
    @Test func randomMemberIDIsTwelveLowercaseHexDigitsOfTheLow48Bits() {
        struct Fixed: RandomNumberGenerator {
            var value: UInt64
            mutating func next() -> UInt64 { value }
        }
        var small = Fixed(value: 0xAB)
        #expect(MemberID.random(using: &small).rawValue == "0000000000ab")
        var big = Fixed(value: 0xFFFF_1234_5678_9ABC)
        #expect(MemberID.random(using: &big).rawValue == "123456789abc")
        for _ in 0..<50 { #expect(F.isMemberIDText(MemberID.random().rawValue)) }
    }

    @Test func memberIDsCompareByRawValue() {
        #expect(MemberID("00a") < MemberID("00b"))
        #expect(!(MemberID("b") < MemberID("a")))
        #expect(MemberID("x").description == "x")
    }
}
