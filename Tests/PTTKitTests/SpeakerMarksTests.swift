import PTTProtocol
import Testing

@testable import PTTKit

/// A packet names its speaker by its CSRC, also when it arrives after the floor event that ended its burst.
@Suite("Speaker marks")
struct SpeakerMarksTests {
    static func member(_ user: String) -> MemberInfo {
        MemberInfo(id: "m-\(user)", name: "\(user)'s phone", user: user, priority: 0, receiveOnly: false)
    }

    @Test("a burst's late packets keep their speaker after floor-idle and after the next speaker's floor-taken")
    func latePackets() {
        let ann = Self.member("ann")
        let bob = Self.member("bob")
        var marks = SpeakerMarks()
        #expect(marks.mark(speakerSSRC: 11) == nil, "nobody holds the floor and the SSRC was never heard")
        marks.floor(ann)
        #expect(marks.mark(speakerSSRC: 11) == ann)
        marks.floor(nil)
        #expect(marks.mark(speakerSSRC: 11) == ann, "after floor-idle")
        marks.floor(bob)
        #expect(marks.mark(speakerSSRC: 11) == ann, "after bob's floor-taken")
        #expect(marks.mark(speakerSSRC: 22) == bob)
        #expect(marks.mark(speakerSSRC: nil) == bob, "no CSRC: the floor's holder")
        marks.floor(nil)
        #expect(marks.mark(speakerSSRC: 33) == nil)
    }

    @Test("a member that talks again on a new SSRC is tied to the new one; old ties are bounded")
    func ties() {
        var marks = SpeakerMarks()
        let ann = Self.member("ann")
        marks.floor(ann)
        #expect(marks.mark(speakerSSRC: 1) == ann)
        marks.floor(nil)
        marks.floor(ann)
        #expect(marks.mark(speakerSSRC: 2) == ann)
        marks.floor(nil)
        #expect(marks.mark(speakerSSRC: 1) == nil, "ann's old SSRC is forgotten once she talks on another")
        for user in 0..<SpeakerMarks.remembered + 1 {
            marks.floor(Self.member("u\(user)"))
            _ = marks.mark(speakerSSRC: UInt32(100 + user))
        }
        marks.floor(nil)
        #expect(marks.mark(speakerSSRC: 100) == nil, "the oldest tie went")
        #expect(
            marks.mark(speakerSSRC: UInt32(100 + SpeakerMarks.remembered)) == Self.member("u\(SpeakerMarks.remembered)")
        )
    }
}
